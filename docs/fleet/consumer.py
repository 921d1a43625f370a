#!/usr/bin/python3
"""A back-office consumer of the fleet's events through RabbitMQ itself (AMQP 0-9-1, pika).

The vehicles publish MQTT on the cluster; the MQTT plugin routes every message through the
exchange amq.topic with the topic as routing key ('/' becomes '.'). This consumer binds a
durable queue to stepwise.*.events and reads it:

    consumer.py --url amqp://USER:PASSWORD@127.0.0.1:5672/stepwise [--queue NAME]
                [--stream FIRST|LAST|NEXT|OFFSET] [--count N] [--timeout SECONDS] [--declare-only]

- A quorum queue by default (replicated, survives a node): start several consumers on the same
  --queue and RabbitMQ hands each message to one of them (competing consumers); a message is
  acknowledged only after it was printed, so a consumer that dies leaves it to the others.
- --stream OFFSET: a stream queue instead, read from an offset (first, last, next or a number),
  so that a new consumer can replay the fleet's history; streams keep messages after delivery.
- Each event is printed as one line, "vehicle boot seq class", after dedupe by (vehicle, boot)
  and seq as docs/fleet.md says (QoS 1 is at least once).

Only pika (Debian python3-pika), a maintained AMQP client; no protocol code of ours.
"""
import argparse
import json
import sys

import pika


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", required=True, help="amqp://USER:PASSWORD@HOST:PORT/VHOST")
    p.add_argument("--queue", default="stepwise-backoffice.events")
    p.add_argument("--stream", help="read a stream queue from this offset")
    p.add_argument("--count", type=int, help="stop after this many new events")
    p.add_argument("--timeout", type=float, help="stop after this many idle seconds")
    p.add_argument("--declare-only", action="store_true", help="declare and bind, then exit")
    a = p.parse_args()

    connection = pika.BlockingConnection(pika.URLParameters(a.url))
    channel = connection.channel()
    kind = "stream" if a.stream else "quorum"
    channel.queue_declare(a.queue, durable=True, arguments={"x-queue-type": kind})
    channel.queue_bind(a.queue, "amq.topic", routing_key="stepwise.*.events")
    if a.declare_only:
        connection.close()
        return 0
    # Streams need a prefetch and manual acknowledgements.
    channel.basic_qos(prefetch_count=100)
    arguments = {}
    if a.stream:
        offset = a.stream
        arguments["x-stream-offset"] = int(offset) if offset.isdigit() else offset
    last = {}
    seen = 0
    for method, _, body in channel.consume(
        a.queue, arguments=arguments, inactivity_timeout=a.timeout
    ):
        if method is None:  # idle for --timeout seconds
            break
        vehicle = method.routing_key.split(".")[1]
        try:
            event = json.loads(body)
            key = (vehicle, event["boot"])
            seq = event["seq"]
        except (ValueError, KeyError, TypeError):
            print(f"{vehicle} unreadable {body[:80]!r}", file=sys.stderr)
            channel.basic_ack(method.delivery_tag)
            continue
        if seq > last.get(key, 0):
            last[key] = seq
            print(vehicle, event["boot"], seq, event.get("class", "?"), flush=True)
            seen += 1
        channel.basic_ack(method.delivery_tag)
        if a.count is not None and seen >= a.count:
            break
    channel.cancel()
    connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
