"""Text embeddings: the fastembed/ONNX Runtime embedder and the offline fallback model (`embed`), its worker
processes for `embedding.parallel` (`pool`), and the memory-lean copy of an int8 model (`onnx_prep`)."""
