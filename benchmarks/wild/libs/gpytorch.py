"""GPyTorch: Gaussian processes on PyTorch (exact GP regression, marginal log likelihood).

Users write a small ExactGP subclass (as the docs do) and compile the training loss, the
posterior prediction, and a kernel evaluation.
"""

from __future__ import annotations

import gpytorch
import torch

DISTRIBUTION = "gpytorch"
PACKAGE = "gpytorch"
WHY = "probabilistic ML: Gaussian processes; lazy linear algebra through linear_operator"


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def _model():
    train_x = torch.linspace(0, 1, 20)
    train_y = torch.sin(train_x * 6.0) + 0.1 * torch.randn(20)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    return ExactGPModel(train_x, train_y, likelihood), likelihood, train_x, train_y


def call_mll_loss():
    model, likelihood, train_x, train_y = _model()
    model.train()
    likelihood.train()
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)

    def loss(x, y):
        return -mll(model(x), y)

    return loss, (train_x, train_y), {}


def call_posterior_predict():
    model, likelihood, _, _ = _model()
    model.eval()
    likelihood.eval()

    def predict(x):
        with gpytorch.settings.fast_pred_var():
            posterior = likelihood(model(x))
            return posterior.mean, posterior.variance

    return predict, (torch.linspace(0, 1, 7),), {}


def call_kernel_matrix():
    kernel = gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=2.5))

    def covariance(x):
        return kernel(x).to_dense()

    return covariance, (torch.randn(10, 3),), {}


# -- calls written for rewritten functions the benchmark's calls do not run (rewrite_check.py) --


class DenseCovariance(torch.nn.Module):
    """`kernel(x1, x2, **options)` made dense; a Module, so the harness differentiates the
    kernel's hyperparameters too."""

    def __init__(self, kernel, **options):
        super().__init__()
        self.kernel = kernel
        self.options = options

    def forward(self, *points):
        result = self.kernel(*points, **self.options)
        return result if torch.is_tensor(result) else result.to_dense()


class SGPRModel(gpytorch.models.ExactGP):
    """Sparse GP regression as gpytorch's SGPR example writes it (an InducingPointKernel)."""

    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        base = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())
        self.covar_module = gpytorch.kernels.InducingPointKernel(
            base, inducing_points=train_x[:6].clone(), likelihood=likelihood
        )

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def rewrite_call_sgpr_training_loss():
    """kernels/inducing_point_kernel.py:InducingPointKernel.forward, its `if self.training:` check
    that x1 equals x2 (rewritten to a shape test and `torch._assert_async`): SGPR's training loss,
    with gradients for the inducing points. The benchmark's models use no inducing points."""
    train_x = torch.linspace(0, 1, 20).unsqueeze(-1)
    train_y = torch.sin(train_x.squeeze(-1) * 6.0) + 0.1 * torch.randn(20)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = SGPRModel(train_x, train_y, likelihood)
    model.train()
    likelihood.train()
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)

    class Loss(torch.nn.Module):  # a Module, so the harness differentiates the model's parameters
        def __init__(self):
            super().__init__()
            self.mll = mll

        def forward(self, x, y):
            return -self.mll(self.mll.model(x), y)

    return Loss(), (train_x, train_y), {}


def rewrite_call_cylindrical_kernel():
    """kernels/cylindrical_kernel.py:CylindricalKernel.forward, its radius check (`if torch.any(r1 >
    1.0) or torch.any(r2 > 1.0): raise` -> `torch._assert_async`): points inside the unit ball, as
    the kernel requires, with gradients. No benchmark call uses this kernel."""
    kernel = gpytorch.kernels.CylindricalKernel(
        num_angular_weights=3, radial_base_kernel=gpytorch.kernels.MaternKernel(nu=2.5)
    )
    x = torch.randn(8, 3)
    x = (0.9 * x / x.norm(dim=-1, keepdim=True) * torch.rand(8, 1)).requires_grad_()
    return DenseCovariance(kernel), (x,), {}


def rewrite_call_cylindrical_kernel_outside_ball():
    """The same radius check's raising path: a point of radius > 1 (the error path the rewrite
    changed; it must raise the same RuntimeError before and after)."""
    kernel = gpytorch.kernels.CylindricalKernel(
        num_angular_weights=3, radial_base_kernel=gpytorch.kernels.MaternKernel(nu=2.5)
    )
    x = torch.randn(8, 3) * 0.1
    x[2] = torch.tensor([2.0, 0.0, 0.0])
    return DenseCovariance(kernel), (x,), {}


def rewrite_call_keops_fallback_kernel():
    """kernels/keops/keops_kernel.py:KeOpsKernel.__call__ (the class defined when pykeops is not
    installed, whose RuntimeWarning got an `is_compiling()` guard): gpytorch's KeOps RBF kernel,
    which falls back to the plain kernel. The benchmark uses the plain kernels."""
    kernel = gpytorch.kernels.keops.RBFKernel()
    return DenseCovariance(kernel), (torch.randn(10, 3, requires_grad=True),), {}


def _diagonal(kernel_class):
    return DenseCovariance(kernel_class(), diag=True), (torch.randn(6, 2, requires_grad=True),), {}


def rewrite_call_rbf_grad_diagonal():
    """kernels/rbf_kernel_grad.py:RBFKernelGrad.forward, its `diag=True` path (the x1 == x2 check
    was split into a size test and `torch._assert_async`): the prior variances of a GP with
    derivative observations, `kernel(x, diag=True)`. The benchmark's kernels have no gradients."""
    return _diagonal(gpytorch.kernels.RBFKernelGrad)


def rewrite_call_rbf_gradgrad_diagonal():
    """kernels/rbf_kernel_gradgrad.py:RBFKernelGradGrad.forward, the same `diag=True` check."""
    return _diagonal(gpytorch.kernels.RBFKernelGradGrad)


def rewrite_call_matern52_grad_diagonal():
    """kernels/matern52_kernel_grad.py:Matern52KernelGrad.forward, the same `diag=True` check."""
    return _diagonal(gpytorch.kernels.Matern52KernelGrad)


def rewrite_call_rbf_grad_diagonal_of_two_inputs():
    """RBFKernelGrad.forward's raising path: `diag=True` for two different inputs of one size (the
    `torch.eq(x1, x2).all()` half of the check, now `torch._assert_async`): the same RuntimeError
    before and after."""
    kernel = DenseCovariance(gpytorch.kernels.RBFKernelGrad(), diag=True)
    return kernel, (torch.randn(6, 2), torch.randn(6, 2)), {}
