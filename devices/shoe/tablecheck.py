"""``python -m devices.shoe.tablecheck [--table FILE] [PAYLOAD ...]``: check a vendor table, look payloads up.

A technician's tool (docs/shoes.md): says whether a table file loads (or which key is wrong), and
what the table makes of payloads read off real cards; ``--print CARD --deck D --pack P`` prints
the payload a card of that scheme carries.
"""

from __future__ import annotations

from .vendor_table import main

if __name__ == "__main__":
    raise SystemExit(main())
