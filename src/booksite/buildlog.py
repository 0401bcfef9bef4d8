"""A build log without false alarms: what a newcomer would take for errors, and is not.

* ipykernel warns, once per page it runs, "Kernel is running over TCP without
  encryption": by default jupyter_client gives a kernel no CurveZMQ keys. The
  python3 kernelspec declares that it supports them, and jupyter_client's
  policy "auto" then hands them out. myst-nb gives no way to configure the
  kernel manager it starts, so the policy's default is set here.
* "myst v…: MdParserConfig(…)" and "myst-nb v…: NbParserConfig(…)": both
  extensions log their whole configuration (a screenful) at the start of every
  build.
* "document is referenced in multiple toctrees: ['_pdf', 'index']": the PDF's
  root page (book/_pdf.md) lists every chapter again, on purpose.
"""

from __future__ import annotations

import logging

from jupyter_client.manager import KernelManager

#: The loggers whose expected lines :class:`WithoutExpectedNoise` drops.
LOGGERS = ("sphinx.myst_parser.sphinx_ext.main", "sphinx.myst_nb.sphinx_ext", "sphinx.sphinx.environment")


class WithoutExpectedNoise(logging.Filter):
    """Drop the configuration dumps and the PDF root's expected toctree notes.

    Examples
    --------
    >>> f = WithoutExpectedNoise()
    >>> f.filter(logging.makeLogRecord({"msg": "myst v4: MdParserConfig(a=1)"}))
    False
    >>> f.filter(logging.makeLogRecord({"msg": "a real warning"}))
    True
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "subtype", None) == "multiple_toc_parents":
            return "'_pdf'" not in str(record.args)
        return "ParserConfig(" not in record.getMessage()


def setup_buildlog(app) -> None:
    """Give kernels CurveZMQ keys and filter the expected noise out of the log."""
    KernelManager.class_traits()["transport_encryption"].default_value = "auto"
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, WithoutExpectedNoise) for f in logger.filters):
            logger.addFilter(WithoutExpectedNoise())
