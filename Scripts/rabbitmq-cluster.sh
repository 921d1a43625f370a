#!/bin/sh
# A three-node RabbitMQ cluster on this machine, as the fleet's tests and benchmarks use it
# (docs/fleet.md, "A RabbitMQ cluster").
#
#   Scripts/rabbitmq-cluster.sh start DIR    start, cluster and configure the nodes
#   Scripts/rabbitmq-cluster.sh start-node DIR I   start node I (1..3) again after it was killed
#   Scripts/rabbitmq-cluster.sh stop DIR     end every node, then epmd, each by its pid
#   Scripts/rabbitmq-cluster.sh user DIR NAME PASSWORD vehicle|dispatcher|backoffice
#                                            add a broker account (below)
#   Scripts/rabbitmq-cluster.sh definitions DIR FILE
#                                            import FILE (rabbitmqctl import_definitions: many
#                                            accounts at once, as Scripts/fleet-bench.py makes)
#   Scripts/rabbitmq-cluster.sh ctl DIR I ARGS...   rabbitmqctl ARGS on node I (queue statistics)
#
# Everything lives in DIR: each node's data, logs and configuration, the Erlang cookie (HOME),
# and DIR/cluster.env, which `start` writes for its callers:
#   EPMD_PORT, EPMD_PID, NODE_1..3 (names), PID_1..3, AMQP_PORT_1..3, MQTT_PORT_1..3, DIST_PORT_1..3
# Ports: RABBITMQ_CLUSTER_PORT (default 25700) for epmd, then for node i (1..3) AMQP at
# +10i, MQTT at +10i+1, Erlang distribution at +10i+2. Everything listens on 127.0.0.1 only:
# epmd (ERL_EPMD_ADDRESS), the distribution (inet_dist_use_interface), AMQP and MQTT, and the
# CLI's own distribution node.
#
# The nodes: rabbitmq_mqtt enabled, MQTT in the vhost "stepwise" on amq.topic, durable (QoS 1,
# clean session off) MQTT subscriptions on quorum queues (mqtt.durable_queue_type, 3.10; classic
# ones with RABBITMQ_MQTT_QUEUE_TYPE=classic, for comparison), anonymous MQTT off; each MQTT subscriber may have RABBITMQ_MQTT_PREFETCH (default 10, the plugin's own
# default) unacknowledged messages. The account "stepwise-admin" (password in
# DIR/admin.password) administers the vhost.
# `user … vehicle` may write only stepwise/NAME/… and read only stepwise/NAME/command; `user …
# dispatcher` may read every stepwise/… topic and write only stepwise/<any>/command (RabbitMQ
# topic authorisation on amq.topic: MQTT's / is AMQP's ., so the patterns are on routing keys);
# `user … backoffice` is an AMQP consumer of its own stepwise-backoffice.… queues (docs/fleet/).
#
# With RABBITMQ_CLUSTER_TLS=PKI (a folder with ca.crt, server.crt and server.key), each node
# also takes MQTT over TLS (mqtts://) on 127.0.0.1 at +10i+3 (MQTTS_PORT_i in cluster.env), as
# RabbitMQ's TLS guide configures it; clients are not asked for certificates.
#
# Each node runs in the foreground (RUNNING_UNDER_SYSTEMD=1 makes rabbitmq-server exec the Erlang
# VM, so the pid started is the node's); `stop` sends each SIGTERM (a clean stop), waits up to
# 30 s, then SIGKILL. Debian's rabbitmq-server 3.10.8 (Scripts/install-deps.sh installs it);
# its own service is not used.
set -eu

RABBIT_BIN=${RABBIT_BIN:-/usr/lib/rabbitmq/bin}
usage() {
  echo "usage: $0 start|stop DIR | start-node DIR 1|2|3 | user DIR NAME PASSWORD vehicle|dispatcher|backoffice | definitions DIR FILE | ctl DIR 1|2|3 ARGS..." >&2
  exit 2
}
[ $# -ge 2 ] || usage
command=$1
dir=$2

# The environment every rabbitmq-server and rabbitmqctl of node $1 (1..3) needs.
node_env() {
  i=$1
  base=${RABBITMQ_CLUSTER_PORT:-25700}
  export HOME="$dir"
  export ERL_EPMD_ADDRESS=127.0.0.1
  export ERL_EPMD_PORT="$base"
  export RABBITMQ_NODENAME="stepwise$i@localhost"
  export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT=$((base + 10 * i))
  export RABBITMQ_DIST_PORT=$((base + 10 * i + 2))
  export RABBITMQ_MNESIA_BASE="$dir/node$i/mnesia"
  export RABBITMQ_LOG_BASE="$dir/node$i/log"
  export RABBITMQ_CONFIG_FILE="$dir/node$i/rabbitmq.conf"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$dir/node$i/enabled_plugins"
  export RABBITMQ_PID_FILE="$dir/node$i/pid"
  export RABBITMQ_CONF_ENV_FILE="$dir/node$i/rabbitmq-env.conf"
  export RABBITMQ_ADVANCED_CONFIG_FILE="$dir/node$i/advanced.config"
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
  export RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
  export RABBITMQ_CTL_DIST_PORT_MIN=$((base + 5))
  export RABBITMQ_CTL_DIST_PORT_MAX=$((base + 9))
  mqtt_port=$((base + 10 * i + 1))
}

ctl() {
  node_env "$1"
  shift
  "$RABBIT_BIN/rabbitmqctl" -n "$RABBITMQ_NODENAME" "$@"
}

# Waits until node $1 answers and runs its applications, up to 120 s.
await_node() {
  tries=0
  until ctl "$1" -q await_startup --timeout 5 >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -ge 24 ]; then
      echo "$0: node $1 did not start; see $dir/node$1/log and $dir/node$1/stdout" >&2
      return 1
    fi
    node_env "$1"
    if ! kill -0 "$(cat "$dir/node$1/started-pid")" 2>/dev/null; then
      echo "$0: node $1 exited; see $dir/node$1/stdout" >&2
      tail -n 20 "$dir/node$1/stdout" >&2 || true
      return 1
    fi
  done
}

# Starts node $1's Erlang VM in the background (its pid in $!) with what is in DIR/node$1.
launch() {
  node_env "$1"
  RUNNING_UNDER_SYSTEMD=1 "$RABBIT_BIN/rabbitmq-server" >>"$dir/node$1/stdout" 2>&1 &
  echo "$!" >"$dir/node$1/started-pid"
}

# start-node I: starts node I again (after a kill); it rejoins the cluster from its own data.
start_node() {
  case "$1" in 1 | 2 | 3) ;; *) usage ;; esac
  launch "$1"
  sed -i "s/^PID_$1=.*/PID_$1=$!/" "$dir/cluster.env"
  await_node "$1"
}

start() {
  command -v "$RABBIT_BIN/rabbitmq-server" >/dev/null || {
    echo "$0: no $RABBIT_BIN/rabbitmq-server (Scripts/install-deps.sh installs rabbitmq-server)" >&2
    exit 1
  }
  mkdir -p "$dir"
  [ ! -e "$dir/cluster.env" ] || {
    echo "$0: $dir/cluster.env exists: stop that cluster first" >&2
    exit 1
  }
  umask 077
  od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$dir/.erlang.cookie"
  chmod 400 "$dir/.erlang.cookie"
  od -An -N12 -tx1 /dev/urandom | tr -d ' \n' >"$dir/admin.password"

  node_env 1
  epmd -address 127.0.0.1 -port "$ERL_EPMD_PORT" >"$dir/epmd.log" 2>&1 &
  echo "EPMD_PORT=$ERL_EPMD_PORT" >"$dir/cluster.env"
  echo "EPMD_PID=$!" >>"$dir/cluster.env"

  for i in 1 2 3; do
    node_env "$i"
    mkdir -p "$dir/node$i/log" "$dir/node$i/mnesia"
    echo '[rabbitmq_mqtt].' >"$RABBITMQ_ENABLED_PLUGINS_FILE"
    : >"$RABBITMQ_CONF_ENV_FILE"
    echo '[].' >"$RABBITMQ_ADVANCED_CONFIG_FILE"
    cat >"$RABBITMQ_CONFIG_FILE" <<EOF
listeners.tcp.1 = 127.0.0.1:$RABBITMQ_NODE_PORT
mqtt.listeners.tcp.1 = 127.0.0.1:$mqtt_port
mqtt.vhost = stepwise
mqtt.exchange = amq.topic
mqtt.allow_anonymous = false
mqtt.durable_queue_type = ${RABBITMQ_MQTT_QUEUE_TYPE:-quorum}
mqtt.prefetch = ${RABBITMQ_MQTT_PREFETCH:-10}
loopback_users = none
log.console = false
log.file.level = info
EOF
    if [ -n "${RABBITMQ_CLUSTER_TLS:-}" ]; then
      cat >>"$RABBITMQ_CONFIG_FILE" <<EOF
mqtt.listeners.ssl.1 = 127.0.0.1:$((mqtt_port + 2))
ssl_options.cacertfile = $RABBITMQ_CLUSTER_TLS/ca.crt
ssl_options.certfile = $RABBITMQ_CLUSTER_TLS/server.crt
ssl_options.keyfile = $RABBITMQ_CLUSTER_TLS/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false
EOF
    fi
    launch "$i"
    {
      echo "NODE_$i=$RABBITMQ_NODENAME"
      echo "PID_$i=$!"
      echo "AMQP_PORT_$i=$RABBITMQ_NODE_PORT"
      echo "MQTT_PORT_$i=$mqtt_port"
      [ -z "${RABBITMQ_CLUSTER_TLS:-}" ] || echo "MQTTS_PORT_$i=$((mqtt_port + 2))"
      echo "DIST_PORT_$i=$RABBITMQ_DIST_PORT"
    } >>"$dir/cluster.env"
  done

  for i in 1 2 3; do await_node "$i" || {
    stop
    exit 1
  }; done
  for i in 2 3; do
    ctl "$i" -q stop_app
    ctl "$i" -q join_cluster stepwise1@localhost
    ctl "$i" -q start_app
  done
  ctl 1 -q add_vhost stepwise
  ctl 1 -q add_user stepwise-admin "$(cat "$dir/admin.password")"
  ctl 1 -q set_user_tags stepwise-admin administrator
  ctl 1 -q set_permissions -p stepwise stepwise-admin '.*' '.*' '.*'
  ctl 1 -q delete_user guest
  echo "READY=1" >>"$dir/cluster.env"
}

# user NAME PASSWORD vehicle|dispatcher: an account in the vhost "stepwise". MQTT clients need
# configure and write on their own queues (mqtt-subscription-<client id>qos1) and read to
# consume them; topic permissions on amq.topic then decide which routing keys each may use.
user() {
  name=$1
  password=$2
  role=$3
  case "$name" in *[!A-Za-z0-9_-]* | "") usage ;; esac
  ctl 1 -q add_user "$name" "$password"
  own="^mqtt-subscription-${name}qos[01]\$"
  case "$role" in
  vehicle)
    ctl 1 -q set_permissions -p stepwise "$name" "$own" "$own|^amq\\.topic\$" "$own|^amq\\.topic\$"
    ctl 1 -q set_topic_permissions -p stepwise "$name" amq.topic \
      "^(stepwise\\.$name\\.|owntracks\\.[A-Za-z0-9_-]+\\.$name\$)" "^stepwise\\.$name\\.command\$"
    ;;
  dispatcher)
    ctl 1 -q set_permissions -p stepwise "$name" "$own" "$own|^amq\\.topic\$" "$own|^amq\\.topic\$"
    ctl 1 -q set_topic_permissions -p stepwise "$name" amq.topic \
      '^stepwise\.[A-Za-z0-9_-]+\.command$' '^(stepwise|owntracks)\.'
    ;;
  backoffice)
    # AMQP consumers (docs/fleet/consumer.py): their own stepwise-backoffice.* queues, bound
    # to amq.topic with read topic permission on every stepwise.… key and none to write.
    bo='^stepwise-backoffice\.'
    ctl 1 -q set_permissions -p stepwise "$name" "$bo" "$bo" "$bo|^amq\.topic\$"
    ctl 1 -q set_topic_permissions -p stepwise "$name" amq.topic '^$' '^stepwise\.'
    ;;
  *) usage ;;
  esac
}

# Ends process $1: SIGTERM, then SIGKILL after $2 seconds.
end_pid() {
  pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge $(($2 * 10)) ]; then
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

stop() {
  [ -f "$dir/cluster.env" ] || return 0
  for i in 3 2 1; do
    pid=$(sed -n "s/^PID_$i=//p" "$dir/cluster.env")
    [ -z "$pid" ] || end_pid "$pid" 30
  done
  pid=$(sed -n 's/^EPMD_PID=//p' "$dir/cluster.env")
  [ -z "$pid" ] || end_pid "$pid" 5
  rm -f "$dir/cluster.env"
}

case "$command" in
start) start ;;
start-node)
  [ $# -eq 3 ] || usage
  start_node "$3"
  ;;
stop) stop ;;
definitions)
  [ $# -eq 3 ] || usage
  ctl 1 -q import_definitions "$3"
  ;;
user)
  [ $# -eq 5 ] || usage
  user "$3" "$4" "$5"
  ;;
ctl)
  [ $# -ge 4 ] || usage
  case "$3" in 1 | 2 | 3) ;; *) usage ;; esac
  node=$3
  shift 3
  ctl "$node" "$@"
  ;;
*) usage ;;
esac
