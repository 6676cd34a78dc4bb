"""Cameras: frames from USB/V4L2 devices, RTSP or MJPEG-over-HTTP streams and video files (OpenCV VideoCapture)."""
