"""Money-wheel sensors: an angle encoder over Modbus (``wheel-encoder``) and a pointer reader over a
serial line (``wheel-pointer``). See docs/money-wheels.md."""
