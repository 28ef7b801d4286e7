# King Me: the Discord bot, its AI workers and its HTTP side in one container: the public pages on 8080 (HTTP_PORT),
# /healthz and /metrics on 8090 (OPS_PORT).
#   docker build -t kingme .
#   docker run -e DISCORD_TOKEN=... -v kingme-data:/data -p 127.0.0.1:8080:8080 -p 127.0.0.1:8090:8090 kingme
# Without REDIS_URL the bot runs its own redis-server with append-only persistence under /data/redis;
# docker-compose.yml runs a separate Redis instead, compose.scale.yml shard processes and AI workers on one Redis.
#
# Reproducible: the base image is pinned to a Python minor version and a Debian release (pin it by digest with
# --build-arg PYTHON_IMAGE=python:3.11-slim-bookworm@sha256:...), every dependency is installed from requirements.lock
# with its hash (scripts/lock makes it from pyproject.toml), and the user has a fixed uid and gid. docs/scaling.md.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    KINGME_DATA=/data \
    NUMBA_CACHE_DIR=/opt/kingme/numba-cache \
    HTTP_PORT=8080 \
    OPS_HOST=0.0.0.0 \
    OPS_PORT=8090
# OPS_HOST: /healthz and /metrics listen on the container's own network. Its loopback would be the container's alone,
# which neither a port mapping nor a Prometheus on the compose network reaches; publish OPS_PORT on the host's loopback
# only (-p 127.0.0.1:8090:8090), never to the world. With --network host, set OPS_HOST=127.0.0.1.

# A fixed uid and gid (10001), so files in a volume belong to the same ids in every build of the image.
RUN groupadd --gid 10001 kingme \
    && useradd --uid 10001 --gid 10001 --no-log-init --home-dir /data --no-create-home --shell /usr/sbin/nologin kingme \
    && mkdir -p /data \
    && chown kingme:kingme /data

# The locked dependencies in their own layer, so a change to the code does not reinstall them. --no-deps: the lock is
# the whole set, nothing is resolved here; pip check proves it is complete.
WORKDIR /src
COPY requirements.lock ./
RUN pip install --no-deps --require-hashes -r requirements.lock

# The project itself, built with the locked setuptools (no build isolation: nothing is fetched) and without its
# dependencies re-resolved.
COPY pyproject.toml README.md ./
COPY core ./core
COPY ai ./ai
COPY bot ./bot
RUN pip install --no-deps --no-build-isolation . \
    && pip check \
    && cd / && rm -rf /src

# Compile the search kernel into numba's cache now, so that the AI workers only load it when they start (about 0.45 s, not 13 s).
RUN mkdir -p "$NUMBA_CACHE_DIR" \
    && python -c "import ai.kernel; ai.kernel.warm_up()" \
    && chown -R kingme:kingme "$NUMBA_CACHE_DIR"

# Run from the data directory so a stray relative path lands in the volume, not in the image.
WORKDIR /data
USER kingme
VOLUME ["/data"]
# Only the public pages' port: `docker run -P` publishes every exposed port on every interface of the host.
EXPOSE 8080

# slim has no curl: ask /healthz with the standard library (a 503 or no answer raises, so the exit status is 1).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('OPS_PORT', '8090') + '/healthz', timeout=4)" || exit 1

STOPSIGNAL SIGTERM
CMD ["kingme", "run"]
