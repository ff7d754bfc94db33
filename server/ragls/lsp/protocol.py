"""`RaglsProtocol`: the JSON-RPC side of `ragls serve` — every message the editor sends is answered, also one
pygls cannot read: params that do not fit their method's LSP type (-32602), a body that is not JSON (-32700), JSON
that is not a JSON-RPC 2.0 message (-32600), a request after `shutdown` (-32600); `rag/*` params stay plain JSON.
The frames around the messages: lsp/framing.py; `RaglsServer.report_server_error` (lsp/server.py) logs what was
answered here (`Answered`) instead of showing a pop-up.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol, lsp_method


class Answered(Exception):
    """A message that could not be read was already answered with a JSON-RPC error."""


class RaglsProtocol(LanguageServerProtocol):
    """Pins the position encoding to UTF-16: docs/protocol.md ranges are UTF-16, whatever else the client offers.

    Answers requests pygls cannot read: a request whose params do not fit the LSP type of its method (e.g.
    `textDocument/hover` with `{}`) gets -32602 InvalidParams for its id — pygls 2 only logs it, so the client
    would wait forever; a body that is not JSON (or not UTF-8) gets -32700 ParseError with id null (JSON-RPC 2.0,
    section 5); JSON that is not a JSON-RPC message (`{}`, `[]`, `42`, a non-string method, an id without a
    method, an id that is an object, an array or a boolean) gets -32600 InvalidRequest. A request or notification may omit `params` (JSON-RPC 2.0, section 4.2):
    its handler gets none, as with `"params": null`. A notification that cannot be read is only logged.

    The params of a method lsprotocol has no type for (`rag/*`) stay the JSON's dicts and lists (`plain.to_plain`
    reads either): pygls made each object a namedtuple of a class built for it (`_dict_to_object`), ~0.4 ms an
    object on the event loop, so a rag/ask whose `history` held 100,000 turns (1.4 MB) held every request for 39 s.
    """

    def __init__(self, server, converter):
        super().__init__(server, converter)
        for message_type in (JsonRPCRequestMessage, JsonRPCNotification):
            converter.register_structure_hook(message_type, lambda obj, cls: cls(**obj))

    def structure_message(self, data: dict[str, Any]):
        # `data` is every JSON object of the body, innermost first (json.loads' object_hook): only a dict carrying
        # "jsonrpc" is a message.
        if isinstance(data, dict) and "jsonrpc" in data:
            method = data.get("method")
            if data["jsonrpc"] != "2.0":
                self._answer_invalid_request(data, 'only "jsonrpc": "2.0" is spoken')
            if "method" in data and not isinstance(method, str):
                self._answer_invalid_request(data, "method must be a string")
            msg_id = data.get("id")
            if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, (str, int, float))):
                self._answer_invalid_request(data, "id must be a string, a number or null")
            if isinstance(method, str) and "params" not in data:
                data = {**data, "params": None}
            if "id" in data and "method" not in data and "result" not in data and "error" not in data:
                self._answer_invalid_request(data, "a message with an id needs a method, a result or an error")
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=exc.to_response_error())
                raise Answered(f"{data['method']}: {exc.message}") from exc
            if isinstance(data, dict) and "method" in data:  # a notification: nobody waits for an answer
                raise Answered(f"notification {data['method']}: {exc.message}") from exc
            raise

    def _answer_invalid_request(self, data: dict[str, Any], why: str):
        msg_id = data.get("id")
        readable = isinstance(msg_id, (str, int, float)) and not isinstance(msg_id, bool)
        self._send_data({"jsonrpc": "2.0", "id": msg_id if readable else None,
                         "error": {"code": JsonRpcInvalidRequest.CODE, "message": f"Invalid Request: {why}"}})
        raise Answered(f"invalid request: {why}")

    def handle_message(self, message):
        """Messages that are not JSON-RPC at all (a JSON array, number, string, or an object without "jsonrpc")
        get -32600 with id null instead of an AttributeError in pygls (which showed the user a pop-up); a request
        after `shutdown` gets -32600 for its id (LSP 3.17), where pygls only logged it and the client waited."""
        if isinstance(message, (dict, list, str, int, float, bool)) or message is None:
            what = type(message).__name__ if message is not None else "null"
            self._answer_invalid_request({}, f"not a JSON-RPC 2.0 message ({what})")
        if self._shutdown and isinstance(getattr(message, "method", None), str) and message.method != types.EXIT \
                and getattr(message, "id", None) is not None:  # LSP: InvalidRequest; pygls only logged it
            self._answer_invalid_request({"id": message.id}, "the server is shutting down (shutdown was received); "
                                                            "only exit is handled")
        return super().handle_message(message)

    def answer_parse_error(self, error: Exception) -> None:
        """Reply -32700 with `"id": null` for a message body that is not JSON (sent as a plain dict: pygls' own
        response type would drop a None id)."""
        self._send_data({"jsonrpc": "2.0", "id": None,
                         "error": {"code": JsonRpcParseError.CODE, "message": f"Parse error: {error}"}})

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [types.PositionEncodingKind.Utf16]
        return (yield from super().lsp_initialize(params))
