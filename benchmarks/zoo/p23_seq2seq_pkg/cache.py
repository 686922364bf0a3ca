import torch


class KVCache:
    def __init__(self) -> None:
        self.keys: list[torch.Tensor] = []

    def get_seq_length(self) -> int:
        return 0 if not self.keys else self.keys[0].shape[1]

    def update(self, key: torch.Tensor) -> torch.Tensor:
        self.keys.append(key)
        return key
