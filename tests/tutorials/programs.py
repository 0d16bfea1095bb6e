"""Programs in the style of the PyTorch tutorials learners come from, each written for `torch`.

Each runs twice, once with `torch` and once with `tensorgrad` standing in for it, and must print
the same text (tests/test_tutorials.py). They are written for this project, topic by topic:
PyTorch's "A gentle introduction to torch.autograd", the autograd mechanics notes, "Extending
PyTorch", the forward-mode AD and torch.func tutorials, d2l's automatic-differentiation chapter,
micrograd's test against torch, and the training loop of "Learning PyTorch with examples".
"""

PROGRAMS = {}


def program(topic):
    def register(source):
        PROGRAMS[topic] = source
        return source
    return register


program("gentle intro: Q = 3a³ - b², backward with a gradient")("""
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
print(Q)
Q.backward(gradient=torch.tensor([1., 1.]))
print(9 * a ** 2 == a.grad, -2 * b == b.grad)
print(a.grad, b.grad)
""")

program("gentle intro: requires_grad spreads, frozen parameters")("""
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
model = torch.nn.Linear(4, 2)
for param in model.parameters():
    param.requires_grad = False
model.weight.requires_grad_(True)
print([p.requires_grad for p in model.parameters()])
""")

program("autograd basics: grad_fn, is_leaf, .grad of a scalar")("""
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
print(x.is_leaf, y.is_leaf, out.is_leaf)
""")

program("autograd basics: requires_grad_ on a computed tensor")("""
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
""")

program("vector output: backward(v) is a vector-Jacobian product")("""
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
""")

program("no_grad, detach and set_grad_enabled")("""
x = torch.tensor([1., 2.], requires_grad=True)
print(x.requires_grad, (x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
y = x.detach()
print(y.requires_grad, x.eq(y).all())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
print(torch.is_grad_enabled())
""")

program("gradients accumulate; zero them between steps")("""
x = torch.tensor([1., 2.], requires_grad=True)
for step in range(3):
    (x * x).sum().backward()
    print(step, x.grad)
x.grad.zero_()
print(x.grad)
x.grad = None
(3 * x).sum().backward()
print(x.grad)
""")

program("retain_graph for a second backward")("""
x = torch.tensor(2., requires_grad=True)
y = x ** 3
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as error:
    print(str(error)[:60])
""")

program("autograd.grad and a second derivative")("""
x = torch.tensor(3., requires_grad=True)
y = x ** 3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
print(dy)
(d2y,) = torch.autograd.grad(dy, x)
print(d2y)
w = torch.tensor([1., 2.], requires_grad=True)
print(torch.autograd.grad((w * w).sum(), [w]))
""")

program("d2l: y = 2xᵀx, then the sum, then detach")("""
x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad, x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.sum().backward()
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
""")

program("d2l: gradients through Python control flow")("""
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c

a = torch.tensor(0.7, requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a, a.grad)
""")

program("micrograd's test: a scalar expression and its gradients")("""
x = torch.Tensor([-4.0]).double()
x.requires_grad = True
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
print(y.data.item(), x.grad.item())
a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b ** 3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e ** 2
g = f / 2.0
g = g + 10.0 / f
g.backward()
print(round(g.data.item(), 6), round(a.grad.item(), 6), round(b.grad.item(), 6))
""")

program("autograd mechanics: saved tensors and in-place errors")("""
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)
a = torch.tensor([1., 2.], requires_grad=True)
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as error:
    print(str(error)[:80])
""")

program("tensor hooks: see and change a gradient")("""
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.register_hook(lambda grad: print("grad of y:", grad))
h = x.register_hook(lambda grad: grad * 10)
y.sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x * 3).sum().backward()
print(x.grad)
""")

program("extending: a custom Function, checked with gradcheck")("""
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result

x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
y = Exp.apply(x)
print(y)
y.sum().backward()
print(x.grad)
print(torch.autograd.gradcheck(Exp.apply, (x,), eps=1e-6, atol=1e-4))
""")

program("extending: a Function with setup_context and a non-tensor argument")("""
class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.constant = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None

x = torch.tensor([1., 2.], requires_grad=True)
y = MulConstant.apply(x, 5.0)
y.sum().backward()
print(y, x.grad)
""")

program("forward-mode AD: dual tensors")("""
import torch.autograd.forward_ad as fwAD
primal = torch.tensor([1., 2., 3.])
tangent = torch.tensor([1., 0., 0.])
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = (dual_input * dual_input).sum()
    jvp = fwAD.unpack_dual(dual_output).tangent
print(jvp)
""")

program("torch.func: grad, vmap, jacrev, jacfwd, hessian")("""
from torch.func import grad, vmap, jacrev, jacfwd, hessian
f = lambda x: (x.sin() * x).sum()
x = torch.tensor([0.5, 1.0, 1.5])
print(grad(f)(x))
print(vmap(grad(f))(torch.stack([x, 2 * x])))
print(jacrev(torch.sin)(x))
print(jacfwd(torch.sin)(x))
print(hessian(f)(x))
""")

program("functional API: jacobian, hessian, vjp, jvp")("""
from torch.autograd.functional import jacobian, hessian, vjp, jvp
def f(x):
    return x ** 2 + x.sum()
x = torch.tensor([1., 2.])
print(jacobian(f, x))
print(hessian(lambda x: (x ** 3).sum(), x))
print(vjp(f, x, torch.ones(2)))
print(jvp(f, x, torch.ones(2)))
""")

program("training loop: linear regression with nn.Linear, MSELoss and SGD")("""
torch.manual_seed(0)
X = torch.tensor([[1.], [2.], [3.], [4.]])
Y = 2 * X + 1
model = torch.nn.Linear(1, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.fill_(0.0)
loss_fn = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(201):
    optimizer.zero_grad()
    loss = loss_fn(model(X), Y)
    loss.backward()
    optimizer.step()
    if epoch % 50 == 0:
        print(epoch, round(loss.item(), 4))
print(round(model.weight.item(), 3), round(model.bias.item(), 3))
""")

program("training loop: a small classifier with CrossEntropyLoss and Adam")("""
X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
labels = torch.tensor([0, 1, 1, 0])
model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(100):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(X), labels)
    loss.backward()
    optimizer.step()
print(round(loss.item(), 3), model(X).argmax(dim=1))
print(model)
""")

program("nn layers tutorials use: BatchNorm1d, Dropout in eval, Flatten")("""
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3),
                          torch.nn.ReLU(), torch.nn.Dropout(0.5))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
x = torch.arange(16.).reshape(4, 2, 2)
net.eval()
print(net(x))
print(net)
""")

program("module hooks: print shapes as data flows")("""
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
for name, layer in model.named_children():
    layer.register_forward_hook(lambda m, i, o, name=name: print(name, type(m).__name__, tuple(o.shape)))
out = model(torch.ones(2, 3))
""")

program("saved-tensor hooks: see what the graph keeps")("""
def pack(t):
    print("saving", tuple(t.shape))
    return t
def unpack(t):
    print("using", tuple(t.shape))
    return t
x = torch.ones(2, 3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * x).sum()
y.backward()
""")

program("learning with examples: a polynomial fit to sin(x) + 1")("""
import math
x = torch.linspace(-math.pi, math.pi, 2000, dtype=torch.float64)
y = torch.sin(x) + 1
a, b, c, d = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (0., 0.5, 0., -0.1))
learning_rate = 1e-6
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, round(loss.item(), 2))
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
print(f"y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
""")

program("extending: a Function whose backward takes its gradients boxed (QKVProjection)")("""
class QKVProjection(torch.autograd.Function):
    boxed_grads_call = True  # backward(ctx, grads): one list, emptied as each is used

    @staticmethod
    def forward(ctx, x, w_q, w_k, w_v):
        ctx.save_for_backward(x, w_q, w_k, w_v)
        return x @ w_q, x @ w_k, x @ w_v

    @staticmethod
    def backward(ctx, grads):
        x, w_q, w_k, w_v = ctx.saved_tensors
        grad_x, grad_ws = 0, []
        for w in (w_q, w_k, w_v):
            grad = grads.pop(0)
            grad_x = grad_x + grad @ w.t()
            grad_ws.append(x.t() @ grad)
            del grad
        left.append(len(grads))
        return (grad_x, *grad_ws)

left = []  # how many gradients each backward left in its list
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
ws = [torch.randn(3, 2, dtype=torch.float64, requires_grad=True) for _ in range(3)]
q, k, v = QKVProjection.apply(x, *ws)
(q.sum() + (k ** 2).sum() + (v * 3).sum()).backward()
print(x.grad.shape, [tuple(w.grad.shape) for w in ws])
print(torch.autograd.gradcheck(QKVProjection.apply, (x, *ws)), set(left))
""")

program("saved-tensor hooks: keep what the graph saves on disk (torch.save/torch.load)")("""
import os, tempfile, uuid
tmp_dir = tempfile.mkdtemp()
def pack_hook(tensor):
    name = os.path.join(tmp_dir, str(uuid.uuid4()))
    torch.save(tensor, name)
    return name
def unpack_hook(name):
    return torch.load(name, weights_only=True)
x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2).sin()
print("files written:", len(os.listdir(tmp_dir)))
y.sum().backward()
print(torch.allclose(x.grad, 2 * x * x.pow(2).cos()))
state = {"weight": torch.ones(2, requires_grad=True), "steps": [torch.arange(3), 1.5]}
torch.save(state, os.path.join(tmp_dir, "state.pt"))
print(torch.load(os.path.join(tmp_dir, "state.pt")))
""")

program("saved-tensor hooks: to disk in self-deleting files, a hooked module in nn.DataParallel")("""
import os, tempfile, uuid
import torch.nn as nn
tmp_dir = tempfile.mkdtemp()
class SelfDeletingTempFile():
    def __init__(self):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))
    def __del__(self):
        os.remove(self.name)
def pack_hook(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file
def unpack_hook(temp_file):
    return torch.load(temp_file.name, weights_only=True)
class SaveToDisk(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module
    def forward(self, x):
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            return self.module(x)
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
    def forward(self, x):
        return (x @ self.w).sin()
torch.manual_seed(0)
net = nn.DataParallel(SaveToDisk(Model()))
print(net)
y = net(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print("files on disk:", len(os.listdir(tmp_dir)))
y.sum().backward()
print(net.module.module.w.grad)
print(sorted(net.state_dict()), net.device_ids)
""")

program("forward AD: unpack_dual gives back the tangent that make_dual got")("""
import torch.autograd.forward_ad as fwAD
primal, tangent = torch.randn(3), torch.randn(3)
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual).tangent is tangent
    print(fwAD.unpack_dual(dual).tangent is tangent)
    print(fwAD.unpack_dual(dual * 2).tangent.allclose(tangent * 2))
""")
