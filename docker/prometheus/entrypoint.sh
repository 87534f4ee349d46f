#!/bin/sh
# Writes Prometheus's configuration from the environment, then runs Prometheus. The targets come
# from the environment because their ports are the compose file's choice: with host networking a
# container's ports are the host's, so they must be free there and the compose file picks them.
#   FIUCX_SERVE_METRICS    the serve's /metrics, host:port (job fiucx-serve)
#   FIUCX_BENCH_METRICS    the initiators' /metrics, host:port,host:port,... (job fiucx-bench)
#   FIUCX_SCRAPE_INTERVAL  1s by default: a bench run lasts seconds
#   FIUCX_PROMETHEUS_LISTEN  Prometheus's own address
# Further arguments go to Prometheus.
set -eu

targets() {
  echo "$1" | sed "s/[^,][^,]*/'&'/g; s/,/, /g"
}

mkdir -p /etc/fiucx /prometheus
cat > /etc/fiucx/prometheus.yml <<END
global:
  scrape_interval: ${FIUCX_SCRAPE_INTERVAL}
  evaluation_interval: ${FIUCX_SCRAPE_INTERVAL}
scrape_configs:
  - job_name: fiucx-serve
    static_configs:
      - targets: [$(targets "$FIUCX_SERVE_METRICS")]
  - job_name: fiucx-bench
    static_configs:
      - targets: [$(targets "$FIUCX_BENCH_METRICS")]
END

exec prometheus --config.file=/etc/fiucx/prometheus.yml --storage.tsdb.path=/prometheus \
  --web.listen-address="$FIUCX_PROMETHEUS_LISTEN" "$@"
