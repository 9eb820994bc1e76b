"""Ingest: sources -> adapters -> normalise -> segment -> collate -> xref/link -> twins -> subjects; writes the records."""
