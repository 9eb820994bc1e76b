"""The one error type the command line turns into a one-line message."""


class KbError(Exception):
    """A problem with the input (a source, a query, a field), reported as one line.

    The message names the file (and line), the query or the field at fault.
    """
