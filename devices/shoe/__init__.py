"""Dealing shoes: a barcode scanner on a serial line, or a camera whose frames we decode (docs/shoes.md).

* :mod:`.vendor_table` - deck-vendor tables: barcode payload <-> card (the shipped default table);
  ``python -m devices.shoe.tablecheck`` checks a table file and looks payloads up;
* :mod:`.fold` - folding repeated reads of one card, payload -> event (pure);
* :mod:`.serial_shoe` - ``serial-shoe``: one decoded payload per text line;
* the camera reads its frames through :mod:`devices.camera.frames` (the one frame transport: the frame stream
  over TCP, cv2.VideoCapture, folders, files);
* :mod:`.vision` - card finding, straightening and barcode decoding on a frame (OpenCV, zxing-cpp/pyzbar);
* :mod:`.tracking` - frames' observations -> card events (confirmation, order, unreadable cards; pure);
* :mod:`.camera_shoe` - ``camera-shoe``: the camera driver.
"""

from .camera_shoe import CameraShoeDriver, CameraShoeOptions
from .fold import PayloadReader, RepeatFolder
from .serial_shoe import SerialShoeDriver
from .vendor_table import (
    PayloadInfo,
    VendorTable,
    VendorTableError,
    default_vendor_table,
    load_vendor_table,
    parse_vendor_table,
    vendor_table_from_option,
)

__all__ = [
    "CameraShoeDriver",
    "CameraShoeOptions",
    "PayloadInfo",
    "PayloadReader",
    "RepeatFolder",
    "SerialShoeDriver",
    "VendorTable",
    "VendorTableError",
    "default_vendor_table",
    "load_vendor_table",
    "parse_vendor_table",
    "vendor_table_from_option",
]
