"""PyTorch's error and warning texts, word for word, kept in one place.

The course promises that a learner's mistake produces the same message under tensorgrad as
under PyTorch, so that what they search for on the web matches what they see. The texts come
from ../shared/reference/pytorch-autograd-behaviour.md (the spec); section numbers are noted.
"""

SECOND_BACKWARD = (  # §3.1
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

NON_SCALAR_BACKWARD = "grad can be implicitly created only for scalar outputs"  # §3

NO_GRAD_FN = "element {index} of tensors does not require grad and does not have a grad_fn"  # §3.4

SHAPE_MISMATCH = (  # §3
    "Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and output[{index}] "
    "has a shape of {output_shape}."
)

GRADIENT_TYPE = "gradients can be either Tensors or None, but got {type_name}"  # §3

COUNT_MISMATCH = "got {outputs} tensors and {grads} gradients"  # §4

UNUSED_INPUT = (  # §4
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)

INPUT_NOT_REQUIRING_GRAD = "One of the differentiated Tensors does not require grad"  # §4

MATERIALIZE_WITHOUT_ALLOW_UNUSED = (  # §4
    "Expected allow_unused to be True or not passed when materialize_grads=True, "
    "but got: allow_unused=False."
)

CREATE_GRAPH_CYCLE = (  # §3.5
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
    "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
    "of your parameters to None after use to break the cycle and avoid the leak."
)

NON_LEAF_GRAD_ACCESS = (  # §3.3
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)

VERSION_MISMATCH = (  # §5.4
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{type_name} [{shape}]]{origin} is at version {current}; expected version "
    "{expected} instead. Hint: enable anomaly detection to find the operation that failed to "
    "compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False)."
)

LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."  # §5.3
VIEW_OF_LEAF_IN_PLACE = (  # §5.3
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)

ONLY_LEAF_FLAGS = (  # §1.4
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)

# §1.2: three texts, depending on how the flag is set.
INT_REQUIRES_GRAD_FACTORY = "Only Tensors of floating point and complex dtype can require gradients"
INT_REQUIRES_GRAD_METHOD = "only Tensors of floating point dtype can require gradients"
INT_REQUIRES_GRAD_ATTRIBUTE = "only Tensors of floating point and complex dtype can require gradients"

NUMPY_REQUIRES_GRAD = (  # §1.1
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)

COPY_CONSTRUCT = (  # §1.1
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than tensorgrad.tensor(sourceTensor)."
)

RETAIN_GRAD_NO_REQUIRES = "can't retain_grad on Tensor that has requires_grad=False"  # §3.3

HOOK_NO_REQUIRES = "cannot register a hook on a tensor that doesn't require gradient"  # §5.5
HOOK_CHANGED_SIZE = "hook '{name}' has changed the size of value"  # §5.5
HOOK_CHANGED_TYPE = "hook '{name}' has changed the type of value (was {was} got {got})"
HOOK_BAD_RETURN = "expected Variable, but hook returned '{type_name}'"  # §5.5

DETACH_VIEW_IN_PLACE = (  # §5.2
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)

GRAD_ASSIGN_SIZE = (  # §3.2
    "attempting to assign a gradient of size '{grad_size}' to a tensor of size '{size}'. "
    "Please ensure that the gradient and the tensor are the same size"
)
GRAD_ASSIGN_DTYPE = (  # §3.2
    "attempting to assign a gradient with dtype '{grad_dtype}' to a tensor with grad_dtype "
    "'{dtype}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
    "You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
    "break downstream systems that assume they match."
)

TRANSPOSE_1D = (  # §2.1
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*tensorgrad.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)

BROADCAST_MISMATCH = (  # §6
    "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
    "dimension {dim}"
)

MATMUL_MISMATCH = "mat1 and mat2 shapes cannot be multiplied ({a0}x{a1} and {b0}x{b1})"  # §6

BOOL_BOOL_SUBTRACTION = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)

BOOL_SUBTRACTION = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)

# tensorgrad's own (a deliberate difference: PyTorch rebuilds the view's graph as
# AsStridedBackward0 of the base's new grad_fn; tensorgrad refuses rather than give a gradient
# that skips the in-place operation)
STALE_VIEW = (
    "this tensor is a view of a tensor that was changed in place after the view was taken, so "
    "its graph no longer leads through the operations that made its values. tensorgrad does "
    "not rebuild a view's graph (PyTorch does, with AsStridedBackward0). Take the view again "
    "after the in-place operation, or .clone() it before."
)

INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)

PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)

# tensorgrad's own: PyTorch writes into such memory anyway (its behaviour is undefined there)
READ_ONLY_MEMORY = (
    "this tensor's memory is read-only (it shares a read-only NumPy array), so it cannot be "
    "changed in place. Use .clone() to get a writable copy first."
)

# tensorgrad's own (a deliberate difference, see README)
IN_PLACE_ON_VIEW = (
    "tensorgrad does not support in-place operations on a view of a tensor when gradients are "
    "being recorded (PyTorch rewrites the base tensor's graph here; tensorgrad keeps graphs "
    "simple). Use an out-of-place operation, or .clone() the view first."
)

# -- argument checks (tensorgrad/arguments.py): PyTorch's python arg parser, word for word ---------
ARGUMENT_TYPE = "{name}(): argument '{argument}'{where} must be {expected}, not {got}"
INT_LIST_ELEMENT = ("{name}(): argument '{argument}'{where} must be tuple of ints, but found "
                    "element of type {element} at pos 0")
INT_LIST_UNPACK = ("{name}(): argument '{argument}' failed to unpack the object at pos {pos} "
                   "with error \"type must be tuple of ints,but got {got}\"")
TAKES_POSITIONAL = "{name}() takes {count} positional argument{s} but {given} {were} given"
# (PyTorch writes "1 required positional arguments" and "2 required positional argument")
MISSING_ARGUMENTS = "{name}() missing {count} required positional argument{s}: {names}"
UNEXPECTED_KEYWORD = "{name}() got an unexpected keyword argument '{keyword}'"
MULTIPLE_VALUES = "{name}() got multiple values for argument '{keyword}'"
INVALID_COMBINATION = ("{name}() received an invalid combination of arguments - got {got}, "
                       "but expected one of:")
# tensorgrad's own: it has no out= (PyTorch writes the result into the given tensor)
NO_OUT_ARGUMENT = ("{name}(): tensorgrad does not support the out= argument; use the returned "
                   "tensor instead (or copy it in with out.copy_(result))")

# -- making a tensor from Python data (creation.py), as PyTorch's tensor() says it ---------------
RAGGED = "expected sequence of length {length} at dim {dim} (got {got})"
ONE_ELEMENT_TENSORS = "only one element tensors can be converted to Python scalars"
INT_OVERFLOW = "Overflow when unpacking long long"
FLOAT_TO_INT_OVERFLOW = "value cannot be converted to type int64 without overflow"
INVALID_DATA_TYPE = "new(): invalid data type '{type_name}'"
CANNOT_INFER_DTYPE = "Could not infer dtype of {type_name}"
TOO_MANY_DIMENSIONS = "too many dimensions '{type_name}'"
# tensorgrad's own: PyTorch allows more dimensions, NumPy (so tensorgrad) at most 64
MORE_THAN_64_DIMS = ("tensorgrad tensors have at most {limit} dimensions (NumPy's limit), but "
                     "the data is nested deeper. Reshape it to fewer dimensions first.")

# -- value checks of single operations --------------------------------------------------------------
ARANGE_STEP_SIGN = "upper bound and lower bound inconsistent with step sign"
NOT_IMPLEMENTED_FOR = "\"{kernel}\" not implemented for '{dtype}'"
INTEGER_DIVISION_BY_ZERO = "ZeroDivisionError"
NEGATIVE_STD = "normal expects std >= 0.0, but found std {std:g}"
UNIFORM_RANGE = "uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
NEGATIVE_TOLERANCE = "{name} must be greater than or equal to zero, but got {value:g}"
MODULE_TO_DTYPE = ("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype={dtype}")
LEGACY_NOT_A_SEQUENCE = "new(): data must be a sequence (got {type_name})"
REQUIRES_GRAD_NOT_BOOL = "requires_grad must be a bool"
BCE_TARGET_RANGE = "all elements of target should be between 0 and 1"
FOUND_DTYPE = "Found dtype {found} but expected {expected}"
EXPECTED_SCALAR_TYPE = "expected scalar type {expected} but found {found}"
LINSPACE_DIMS = ("linspace only supports 0-dimensional start and end tensors, but got {name} "
                 "with {ndim} dimension(s).")
VARIABLE_DATA = "Variable data has to be a tensor, but got {type_name}"
# tensorgrad's own: a view as another dtype reinterprets memory, which tensorgrad does not do
VIEW_AS_DTYPE = ("tensorgrad's view() does not reinterpret a tensor's memory as another dtype; "
                 "use .to(dtype) to convert the values.")
GRAD_IS_SELF = "can't assign Variable as its own grad"
NO_CUDA = "tensorgrad not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
UNKNOWN_DEVICE = ("Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                  "fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type "
                  "at start of device string: {device}")

# -- the entry checks of autograd.backward() and autograd.grad() (autograd/functions.py) ----------
OUTPUT_NOT_TENSOR = "Expected output to be a tensorgrad.Tensor"
INPUT_NOT_TENSOR = "all inputs have to be Tensors or GradientEdges, but got {type_name}"
EMPTY_INPUTS = "`inputs` argument to `{name}()` cannot be empty."
# tensorgrad's own where PyTorch leaks Python's "'float' object is not iterable" and
# "'str' object cannot be interpreted as an integer"
OUTPUTS_TYPE = ("{name}(): the {what} must be a Tensor or a list or tuple of Tensors, but got "
                "{type_name}")
FLAG_TYPE = "{name}(): argument '{flag}' must be a bool (or None), not {type_name}"
# tensorgrad's own: its clamp has no derivative for tensor bounds (PyTorch's has)
CLAMP_BOUND_REQUIRES_GRAD = (
    "tensorgrad's clamp does not compute gradients for tensor bounds that require grad. Use "
    "tensorgrad.maximum(x, low) and tensorgrad.minimum(x, high) instead: they give gradients "
    "to both sides.")
NOT_A_NUMBER = {"an integer": "'{type_name}' object cannot be interpreted as an integer",
                "a real number": "must be real number, not {type_name}"}
# tensorgrad's own: a keyword PyTorch takes that tensorgrad has no use for (generator=, ...)
UNSUPPORTED_KEYWORD = "{name}(): tensorgrad does not support the {keyword}= argument"
