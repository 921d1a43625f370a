// libmosquitto (Debian libmosquitto-dev, 2.0.x): the MQTT client and the MQTT 5 property ids.
#include <mosquitto.h>
#include <mqtt_protocol.h>
