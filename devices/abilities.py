"""What a driver can do besides the Driver contract, declared by the driver's class (it inherits the ability).

The studio's technician services (studio/technician.py) ask a driver for an ability with ``isinstance``: a
driver has an ability because it says so, never because it happens to carry an attribute of that name, and
no caller needs to know device kinds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # pragma: no cover
    from .overhead_camera.calibration import WheelCalibration
    from .shoe.vendor_table import VendorTable


class ReadsCards(ABC):
    """A card shoe: it turns each payload it reads into a card through its deck vendor's table, in which the
    technician's decoder test looks payloads up too."""

    #: the deck vendor's table the driver reads cards with
    table: VendorTable


class DecodesImages(ABC):
    """A driver that decodes pictures in the studio (a camera shoe): it decodes an uploaded still the way it
    decodes its live frames, apart from its own pipeline (no counter, tracker or event is touched)."""

    #: the decoder it decodes with ("zxing", "pyzbar", ...)
    decoder_name: str

    @abstractmethod
    def decode_image(self, data: bytes) -> dict[str, Any]:
        """What the decoder reads in the picture: ``decoder``, ``symbology``, ``width``, ``height``, ``view``
        (what the picture shows), ``cards_in_view``, ``read_from`` and ``payloads`` (the texts read, each
        once, in the order read). Raises ValueError for bytes that are no picture. Slow: call it in a worker
        thread."""


class KeepsFrames(ABC):
    """A camera driver that keeps its latest frame for the technician's live view."""

    @abstractmethod
    def last_frame_jpeg(self) -> bytes | None:
        """The latest frame as JPEG bytes, None before the first frame."""


class KeepsLatestImage(ABC):
    """A camera driver that keeps its latest decoded picture for the studio to read again (the dice camera:
    the technician's live reading and calibration pictures)."""

    @abstractmethod
    def latest(self) -> tuple[int, Any] | None:
        """(frame number, BGR picture) of the latest frame, None before the first."""


class LocatesWheel(ABC):
    """A camera that finds a roulette wheel in its picture by a calibration (the overhead camera): the
    technician's page shows the calibration and what the camera saw in its latest frame."""

    #: where the wheel is in the picture and its pocket order
    calibration: WheelCalibration

    @abstractmethod
    def overlay(self) -> dict[str, Any] | None:
        """What the camera saw in its latest frame, in picture coordinates (``width``, ``height``,
        ``rotor_deg``, ``balls``); None before the first frame."""


class SelfTests(ABC):
    """A device with a self-test of its own, started by one command."""

    #: the command that starts the device's self-test
    self_test_command: ClassVar[str]


class ReadsBalls(ABC):
    """A reader of drawn balls (RFID, camera): it names the ball set it reads with."""

    ball_set: Any


class ReadsWheelPosition(ABC):
    """A money wheel's position sensor (an encoder): ``health()["device"]`` carries ``position``,
    ``counts_per_turn``, ``count``, ``moving`` and ``referenced``."""


class ReadsWheelPointer(ABC):
    """A reader of the segment under a money wheel's pointer: ``health()["device"]["last_read"]`` is its
    latest read (``tag``, ``other_tag``, ``segment_index``, ``kind``)."""
