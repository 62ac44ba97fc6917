#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft: broker and controller in one JVM) for the Kafka contract suite and for
# trying distributed mode on one machine. `npm run kafka` runs it in the foreground; see docs/distributed.md.
#
#   broker.sh [start] [--daemon]   fetch the jars if needed, format the data directory once, start, wait until it serves
#   broker.sh stop                 stop the broker whose pid file is in KAFKA_DATA_DIR, and wait for it to exit
#   broker.sh fetch                only fetch the jars (Maven, into deploy/kafka/lib, cached in ~/.m2)
#
# KAFKA_DATA_DIR     its data, config, log (broker.log) and pid file (default: $TMPDIR/parley-kafka, else /tmp/…)
# KAFKA_PORT         the client port on 127.0.0.1 (9092); the controller listens on KAFKA_CONTROLLER_PORT (port + 1)
# KAFKA_HEAP         the JVM's heap (512m)
# KAFKA_START_TIMEOUT_S, KAFKA_STOP_TIMEOUT_S   how long start waits to serve (180), stop for the exit (60)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lib="$here/lib"
host=127.0.0.1
port="${KAFKA_PORT:-9092}"
controller_port="${KAFKA_CONTROLLER_PORT:-$((port + 1))}"
data="${KAFKA_DATA_DIR:-${TMPDIR:-/tmp}/parley-kafka}"
pid_file="$data/broker.pid"
log_file="$data/broker.log"

say() { echo "kafka: $*" >&2; }

# The jars, once: lib/ is rebuilt when pom.xml is newer than it (a version bump). Two starts at once fetch once.
fetch() {
  command -v mvn >/dev/null || { say "Maven (mvn) is needed to fetch the broker's jars"; exit 1; }
  command -v java >/dev/null || { say "Java 17 or later is needed to run the broker"; exit 1; }
  exec 9>"$here/.fetch.lock"
  flock 9
  if [[ ! -f "$lib/.fetched" || "$here/pom.xml" -nt "$lib/.fetched" ]]; then
    say "fetching the broker's jars with Maven into $lib (the first time downloads about 45 MB into ~/.m2)"
    rm -rf "$lib"
    (cd "$here" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies) >&2
    touch "$lib/.fetched"
  fi
  exec 9>&-
}

running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid
  pid="$(cat "$pid_file")"
  # The pid is ours only while it is still a Kafka broker (pids are reused).
  if [[ -n "$pid" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
    echo "$pid"
  else
    return 1
  fi
}

jvm=(-Xmx"${KAFKA_HEAP:-512m}" -Xms"${KAFKA_HEAP:-512m}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j2.configurationFile="$data/log4j2.properties" -cp "$lib/*")

# Written on every start, so a port given now is the port served; the data under logs/ is formatted once.
configure() {
  mkdir -p "$data"
  cat >"$data/server.properties" <<EOF
process.roles=broker,controller
node.id=1
listeners=PLAINTEXT://$host:$port,CONTROLLER://$host:$controller_port
advertised.listeners=PLAINTEXT://$host:$port
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=$host:$controller_port
log.dirs=$data/logs
# One node: one copy of everything, the internal topics included.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
min.insync.replicas=1
default.replication.factor=1
# A group forms as soon as its first member joins, not 3 s later.
group.initial.rebalance.delay.ms=0
EOF
  cat >"$data/log4j2.properties" <<EOF
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = $log_file
appender.file.filePattern = $log_file.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.state.name = state.change.logger
logger.state.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
  if [[ ! -f "$data/logs/meta.properties" ]]; then
    local cluster_id
    cluster_id="$(java "${jvm[@]}" kafka.tools.StorageTool random-uuid)"
    java "${jvm[@]}" kafka.tools.StorageTool format --standalone -t "$cluster_id" -c "$data/server.properties" >&2
  fi
}

port_answers() { (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; }

# Until the broker logs that it started and its port answers; the broker's exit or the deadline fails the start.
wait_until_serving() {
  local pid="$1" from="$2" deadline=$((SECONDS + ${KAFKA_START_TIMEOUT_S:-180}))
  until tail -c +"$from" "$log_file" 2>/dev/null | grep -q 'Kafka Server started' && port_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "the broker exited while starting; the end of $log_file:"
      tail -n 30 "$log_file" >&2 || true
      rm -f "$pid_file"
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      say "the broker did not start within ${KAFKA_START_TIMEOUT_S:-180} s; stopping it. The end of $log_file:"
      tail -n 30 "$log_file" >&2 || true
      stop
      exit 1
    fi
    sleep 0.2
  done
}

start() {
  local daemon="$1" pid
  if pid="$(running_pid)"; then
    say "already running (pid $pid, data in $data)"
    return 0
  fi
  fetch
  configure
  # The readiness line is looked for in what is logged from now on, not in an earlier run's log.
  local from=$(($(stat -c %s "$log_file" 2>/dev/null || echo 0) + 1))
  # Started directly, not through a function, so $! is the JVM's own pid.
  java "${jvm[@]}" kafka.Kafka "$data/server.properties" >>"$data/stdout.log" 2>&1 &
  pid=$!
  echo "$pid" >"$pid_file"
  if [[ "$daemon" == 1 ]]; then
    wait_until_serving "$pid" "$from"
    say "serving on $host:$port (pid $pid; data, log and pid file in $data; stop: npm run kafka -- stop)"
    return 0
  fi
  trap 'stop; exit 0' INT TERM
  wait_until_serving "$pid" "$from"
  say "serving on $host:$port (data and log in $data); Ctrl-C stops it"
  local status=0
  wait "$pid" || status=$?
  rm -f "$pid_file"
  exit "$status"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    say "no broker running with data in $data"
    rm -f "$pid_file"
    return 0
  fi
  kill -TERM "$pid"
  local deadline=$((SECONDS + ${KAFKA_STOP_TIMEOUT_S:-60}))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "the broker (pid $pid) did not stop within ${KAFKA_STOP_TIMEOUT_S:-60} s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$pid_file"
  say "stopped (pid $pid)"
}

action=start daemon=0
for arg in "$@"; do
  case "$arg" in
    start | stop | fetch) action="$arg" ;;
    --daemon) daemon=1 ;;
    *)
      say "unknown argument $arg (start [--daemon] | stop | fetch)"
      exit 2
      ;;
  esac
done

case "$action" in
  fetch) fetch ;;
  start) start "$daemon" ;;
  stop) stop ;;
esac
