"""How the independent readers (pyiceberg, pyarrow, DuckDB) reach gs://
paths on the Cloud Storage emulator a test started: STORAGE_EMULATOR_HOST
(host:port or http://host:port), plaintext, no credentials. Without the
variable, gs:// is not used."""

import os
import time
from urllib.parse import urlparse

import pyarrow.fs


def emulator_url():
    """http://host:port of the emulator, or None."""
    host = os.environ.get("STORAGE_EMULATOR_HOST", "")
    if not host:
        return None
    return host if "://" in host else f"http://{host}"


def pyiceberg_properties():
    """FileIO properties for pyiceberg's pyarrow GCS filesystem. A token
    is given so that pyarrow never looks for credentials (the emulator
    ignores it)."""
    url = emulator_url()
    if url is None:
        return {}
    return {
        "gcs.service.host": url,
        "gcs.oauth2.token": "emulator-ignores-this",
        "gcs.oauth2.token-expires-at": str(int(time.time() * 1000)
                                           + 3_600_000),
    }


def filesystem():
    """A pyarrow filesystem for gs:// paths (written without the scheme)."""
    url = urlparse(emulator_url())
    return pyarrow.fs.GcsFileSystem(anonymous=True, scheme=url.scheme,
                                    endpoint_override=url.netloc)


def configure_duckdb(connection):
    """Lets DuckDB's httpfs read gs:// from the emulator: the XML API's
    path-style URLs, which the harness has fake-gcs-server serve on its
    own address (-public-host)."""
    url = emulator_url()
    if url is None:
        return
    connection.execute(
        "CREATE SECRET (TYPE gcs, KEY_ID 'emulator', SECRET 'emulator', "
        f"ENDPOINT '{urlparse(url).netloc}', URL_STYLE 'path', "
        "USE_SSL false)")
