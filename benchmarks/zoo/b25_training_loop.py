"""An eager training loop around a compiled model: logging and .item() outside compile are fine."""

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


def train(steps: int = 2, compile_model: bool = True) -> float:
    torch.manual_seed(0)
    model = Regressor()
    compiled = torch.compile(model) if compile_model else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8)
    loss_value = 0.0
    for step in range(steps):
        loss = (compiled(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_value = loss.item()
        if loss_value > 100:
            print("diverging at step", step)
        if (loss > 0).any():
            print(f"step {step}: loss {float(loss):.4f}")
    return loss_value


def case():
    return Regressor().eval(), (torch.randn(3, 4),)


def driver():
    train(compile_model=False)
    Regressor()(torch.randn(3, 4))
