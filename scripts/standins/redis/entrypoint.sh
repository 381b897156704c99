#!/bin/sh
set -e
if [ "$1" = redis-server ]; then
  shift
  exec redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
