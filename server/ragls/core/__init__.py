"""What every layer shares and that imports nothing else of ragls: the IR dataclasses passed between layers (`ir`),
the errors and their one mapping to each front's answer (`errors`), text analysis (`analysis`), content hashes
(`hashing`), file URIs (`uris`), atomic file writes (`atomic`), the memo LRU (`lru`), glibc heap settings (`heap`) and
OpenTelemetry traces (`telemetry`)."""
