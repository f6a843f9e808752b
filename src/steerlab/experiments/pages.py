"""HTML pages of the reports (``table1.html``, ``report.html``, ``external.html``), rendered from
the Jinja2 templates shipped in ``steerlab/experiments/templates``.

``page.html`` is the page around every report (title, ``report.css``, content); ``macros.html``
holds the pieces (a table from a header and rows, a list of links); each report's template extends
the page. Autoescaping is on: every value given to a template is text, escaped where it lands (a
follower or path name holding ``<``, ``&`` or ``"`` shows as written), and a name a template uses
but is not given is an error, not an empty string.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2

__all__ = ["render_page"]


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("steerlab.experiments", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_page(template: str, **context: Any) -> str:
    """The page ``template`` (a file of ``steerlab/experiments/templates``) rendered with
    ``context``.

    Raises
    ------
    jinja2.TemplateNotFound
        If no template has that name.
    jinja2.UndefinedError
        If the template uses a name ``context`` does not give.
    """
    return _environment().get_template(template).render(**context)
