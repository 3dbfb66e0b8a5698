#!/usr/bin/env bash
# ansible-test runs the target through this script, against an emulator of its own (setup_emulator).
exec python ../setup_emulator/files/ansible_test_target.py "$@"
