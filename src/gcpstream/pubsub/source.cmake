# Pub/Sub source targets.
