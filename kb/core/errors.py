"""The one error type the command line turns into a one-line message."""


class KbError(Exception):
    """A problem with the input (a source, a query, a field), reported as one line.

    The message names the file (and line), the query or the field at fault.
    Line breaks quoted from the input are shown as \\n, so the message stays one line.
    """

    def __init__(self, message: str):
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))
