"""Ball draw machines (lototrons) and ball readers.

* :mod:`.events` - MachineStatus, BallReleased, BallRead, BallUnreadable;
* :mod:`.ballset` - ball-set tables (tag -> ball label and colour);
* :mod:`.registers` - register maps (per machine model, TOML);
* :mod:`devices.modbus_url` (shared) - ``modbus-tcp://`` / ``modbus-rtu://`` URLs;
* :mod:`.modbus_machine` - the ``modbus-ball-machine`` driver;
* :mod:`.reader` - the ``serial-ball-reader`` driver (RFID tag per line);
* :mod:`.camera_reader` - the ``camera-ball-reader`` driver (barcode on the ball).

Each driver module carries its own ``DRIVERS`` entry (devices/registry.py finds them).
See docs/balls.md.
"""
