"""The LSP front: pygls server, handlers, wire models. The only package that imports pygls/lsprotocol."""
