"""Drawing for the explorers: figures drawn off-screen by matplotlib's Agg renderer (imported only
when a figure is made) into PNGs, blitting what moves, and the shared colours.
"""
import io

import ipywidgets as widgets
import numpy as np

from fplab.explorers.formats import DTYPE_NAMES


_DPI = 90


REGION_COLOURS = {"zero": "#9e9e9e", "subnormal": "#f2c14e", "normal": "#8fd694", "overflow": "#e4572e"}


DTYPE_COLOURS = dict(zip(DTYPE_NAMES, ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]))


class Canvas:
    """A figure drawn off-screen: ``redraw`` when static parts change, ``blit`` for the rest."""

    def __init__(self, figure, dynamic, backgrounds=None):
        """``backgrounds``: a dict shared by figures whose static parts are identical, so that a
        background drawn for one of them serves all (the dtype explorers of one notebook)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure = figure
        self.canvas = FigureCanvasAgg(figure)
        self.dynamic = list(dynamic)
        for artist in self.dynamic:
            artist.set_animated(True)
        self.background = None
        self.backgrounds = {} if backgrounds is None else backgrounds
        self.key = None

    def prerender(self, keys, restyle):
        """Draw and keep the static parts for every key now, so no control change has to later."""
        for key in keys:
            restyle(key)
            self.redraw(key)
        self.key = None

    def frame(self, key, restyle):
        """The PNG for ``key``: ``restyle(key)`` and its background when the key changed, then a blit."""
        if key != self.key:
            restyle(key)
            self.key = key
            return self.redraw(key)
        return self.blit()

    def redraw(self, key=None):
        """Draw the static parts (or reuse those drawn before under ``key``), then the dynamic ones."""
        if key is not None and key in self.backgrounds:
            self.background = self.backgrounds[key]
        else:
            self.canvas.draw()  # everything but the animated (dynamic) artists
            self.background = self.canvas.copy_from_bbox(self.figure.bbox)
            if key is not None:
                self.backgrounds[key] = self.background
        return self.blit()

    def blit(self):
        if self.background is None:
            return self.redraw()
        self.canvas.restore_region(self.background)
        for artist in self.dynamic:
            self.figure.draw_artist(artist)
        return self.png()

    def png(self):
        from PIL import Image  # matplotlib's own dependency

        buffer = io.BytesIO()
        rgb = np.asarray(self.canvas.buffer_rgba())[..., :3]
        Image.fromarray(rgb).save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def new_figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI)


def png_of(figure):
    width = int(figure.get_figwidth() * _DPI)
    return widgets.Image(format="png", layout=widgets.Layout(width=f"{width}px"))


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def power_of_ten(value, _position=None):
    """Tick label 10\u207b\u2074\u2075 for 1e-45, in plain text."""
    exponent = int(round(np.log10(value)))
    return "1" if exponent == 0 else "10" + str(exponent).translate(_SUPERSCRIPT)


BASELINE = 0.7  # histogram bars start here on the log count axis, so a count of 1 shows
