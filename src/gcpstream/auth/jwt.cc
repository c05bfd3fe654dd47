#include "gcpstream/auth/jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::auth {
namespace {

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct DigestDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

}  // namespace

std::string Base64UrlEncode(absl::string_view bytes) {
  return absl::WebSafeBase64Escape(bytes);
}

absl::StatusOr<std::string> SignRs256Jwt(const nlohmann::json& header,
                                         const nlohmann::json& claims,
                                         const std::string& pem_private_key) {
  const std::string signing_input = absl::StrCat(
      Base64UrlEncode(header.dump()), ".", Base64UrlEncode(claims.dump()));
  std::unique_ptr<BIO, BioDeleter> bio(BIO_new_mem_buf(
      pem_private_key.data(), static_cast<int>(pem_private_key.size())));
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(
      bio == nullptr
          ? nullptr
          : PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr || EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return absl::InvalidArgumentError(
        "the service-account key's private_key is not an RSA private key in "
        "PEM form; download a new JSON key for the service account");
  }
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> context(EVP_MD_CTX_new());
  size_t length = 0;
  if (context == nullptr ||
      EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr,
                         key.get()) != 1 ||
      EVP_DigestSign(
          context.get(), nullptr, &length,
          reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) != 1) {
    return absl::InternalError("signing the JWT with OpenSSL failed");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(
          context.get(), reinterpret_cast<unsigned char*>(signature.data()),
          &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
          signing_input.size()) != 1) {
    return absl::InternalError("signing the JWT with OpenSSL failed");
  }
  signature.resize(length);
  return absl::StrCat(signing_input, ".", Base64UrlEncode(signature));
}

}  // namespace gcpstream::auth
