"""The two networks of the learned dice reader, as PyTorch modules (training only; the studio runs the
exported ONNX files through OpenCV's DNN module)."""

from __future__ import annotations

import torch
from torch import nn

from recognition.dice.classifier import CLASSES, INPUT
from recognition.dice.detector import CHANNELS


def _block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class Detector(nn.Module):
    """A small CenterNet: die centres as a heatmap at stride 4 (flat, cocked), each centre's box size
    (log), its offset within the cell and the upper face (six logits)."""

    def __init__(self) -> None:
        super().__init__()
        self.s2 = _block(3, 12, 2)
        self.s4 = _block(12, 24, 2)
        self.s8 = nn.Sequential(_block(24, 48, 2), _block(48, 48))
        self.s16 = nn.Sequential(_block(48, 64, 2), _block(64, 64))
        self.up8 = nn.Sequential(nn.Conv2d(64 + 48, 48, 1, bias=False), nn.BatchNorm2d(48), nn.ReLU())
        self.up4 = nn.Sequential(nn.Conv2d(48 + 24, 24, 1, bias=False), nn.BatchNorm2d(24), nn.ReLU())
        self.mix = _block(24, 24)
        self.head = nn.Conv2d(24, CHANNELS, 1)
        with torch.no_grad():
            assert self.head.bias is not None
            self.head.bias[:2] = -2.2  # the heatmap starts near "no die" everywhere

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.s2(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        u8 = self.up8(torch.cat([nn.functional.interpolate(f16, scale_factor=2.0, mode="nearest"), f8], 1))
        u4 = self.up4(torch.cat([nn.functional.interpolate(u8, scale_factor=2.0, mode="nearest"), f4], 1))
        return self.head(self.mix(u4))


def classifier() -> nn.Module:
    """The face classifier on a die crop (colour, INPUT x INPUT): faces 1-6 and "not a clean upper face".
    Two convolutions at 16 and 8 pixels (24, 48, 48, 96, 96, 128 channels): a marbled body's veins and a
    pip need more than one look apart."""
    return nn.Sequential(
        _block(3, 24),
        nn.MaxPool2d(2),
        _block(24, 48),
        _block(48, 48),
        nn.MaxPool2d(2),
        _block(48, 96),
        _block(96, 96),
        nn.MaxPool2d(2),
        _block(96, 128),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(128 * (INPUT // 8) ** 2, len(CLASSES)),
    )
