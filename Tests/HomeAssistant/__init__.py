"""Tests of the Home Assistant integration against the real gateway."""
