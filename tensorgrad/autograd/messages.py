"""PyTorch's error and warning texts, word for word, kept in one place.

The course promises that a learner's mistake produces the same message under tensorgrad as
under PyTorch, so that what they search for on the web matches what they see. The texts were
measured on PyTorch 2.13; the comment above a text names the test that pins it (tests/spec runs
each of those on tensorgrad and on torch), and tests/test_misuse.py checks the argument checks'
texts against torch on thousands of bad calls. Texts marked "tensorgrad's own" are deliberate
differences (README).
"""

# tests/spec/test_s3_backward.py::test_second_backward_through_pow_raises_and_keeps_first_grad
SAVED_TENSORS_ACCESSED_TWICE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on "
    "the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False."
)
SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

# tests/spec/test_s3_backward.py::test_backward_non_scalar_without_gradient_raises
NON_SCALAR_BACKWARD = "grad can be implicitly created only for scalar outputs"

# tests/spec/test_s3_backward.py::test_backward_on_plain_sum_raises
NO_GRAD_FN = "element {index} of tensors does not require grad and does not have a grad_fn"

# tests/spec/test_s3_backward.py::test_backward_gradient_shape_mismatch_raises
SHAPE_MISMATCH = (
    "Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and output[{index}] "
    "has a shape of {output_shape}."
)

# tests/spec/test_s3_backward.py::test_backward_python_list_gradient_raises_type_error
GRADIENT_TYPE = "gradients can be either Tensors or None, but got {type_name}"

# tests/spec/test_s4_grad.py::test_shape_of_given_pairs_is_checked_before_their_count
COUNT_MISMATCH = "got {outputs} tensors and {grads} gradients"

# tests/spec/test_s4_grad.py::test_grad_unused_input_raises_naming_the_index
UNUSED_INPUT = (
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)

# tests/spec/test_s4_grad.py::test_grad_input_that_does_not_require_grad_raises
INPUT_NOT_REQUIRING_GRAD = "One of the differentiated Tensors does not require grad"

# tests/spec/test_s4_grad.py::test_grad_allow_unused_false_with_materialize_grads_raises
MATERIALIZE_WITHOUT_ALLOW_UNUSED = (
    "Expected allow_unused to be True or not passed when materialize_grads=True, "
    "but got: allow_unused=False."
)

# tests/spec/test_s3_backward.py::test_backward_create_graph_warns_once_per_process
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
    "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
    "of your parameters to None after use to break the cycle and avoid the leak."
)

# tests/spec/test_s3_backward.py::test_non_leaf_grad_is_none_and_warns
# copy.deepcopy of a tensor that is not a leaf (Tensor.__deepcopy__)
DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
    "the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "tensorgrad.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
NON_LEAF_GRAD_ACCESS = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)

# tests/spec/test_s5_modes_inplace_hooks.py::test_version_error_names_forward_op_exp
VERSION_MISMATCH = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{type_name} [{shape}]]{origin} is at version {current}; expected version "
    "{expected} instead. Hint: enable anomaly detection to find the operation that failed to "
    "compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False)."
)

# tests/spec/test_s5_modes_inplace_hooks.py::test_leaf_add_
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
# tests/spec/test_s15_leaf_moved_into_the_graph.py::test_backward_into_the_old_accumulator_is_refused
LEAF_MOVED_INTO_GRAPH = "leaf variable has been moved into the graph interior"
# tests/spec/test_s5_modes_inplace_hooks.py::test_view_of_leaf_add_
VIEW_OF_LEAF_IN_PLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)

# tests/spec/test_s1_creation_flags_printing.py::test_requires_grad_underscore_false_on_non_leaf_raises
ONLY_LEAF_FLAGS_ON = "you can only change requires_grad flags of leaf variables."
ONLY_LEAF_FLAGS = (
    f"{ONLY_LEAF_FLAGS_ON} If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)

# Three texts, depending on how the flag is set: tests/spec/test_s1_creation_flags_printing.py::
# test_int_tensor_created_with_requires_grad_raises, ..._underscore_raises, ..._attribute_raises
INT_REQUIRES_GRAD_FACTORY = "Only Tensors of floating point and complex dtype can require gradients"
INT_REQUIRES_GRAD_METHOD = "only Tensors of floating point dtype can require gradients"
INT_REQUIRES_GRAD_ATTRIBUTE = "only Tensors of floating point and complex dtype can require gradients"

# tests/spec/test_s1_creation_flags_printing.py::test_numpy_on_tensor_that_requires_grad_raises
NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)

# NumPy's words for np.array(t, copy=False), which it says for a PyTorch tensor (whose __array__
# takes no `copy`): tests/spec/test_s14_numpy_array_copies.py::test_copy_false_is_refused
NUMPY_COPY_REFUSED = (
    "Unable to avoid copy while creating an array as requested.\n"
    "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy when "
    "needed (no behavior change in NumPy 1.x).\n"
    "For more details, see https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
    "#adapting-to-changes-in-the-copy-keyword."
)

# tests/spec/test_s1_creation_flags_printing.py::test_tensor_of_a_tensor_that_requires_grad_copies_and_warns
COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than tensorgrad.tensor(sourceTensor)."
)

# tests/spec/test_s3_backward.py::test_retain_grad_without_requires_grad_raises
RETAIN_GRAD_NO_REQUIRES = "can't retain_grad on Tensor that has requires_grad=False"

# tests/spec/test_s5_modes_inplace_hooks.py::test_hook_on_tensor_without_requires_grad_raises
HOOK_NO_REQUIRES = "cannot register a hook on a tensor that doesn't require gradient"
# tests/spec/test_s5_modes_inplace_hooks.py::test_hook_changing_size_raises_at_backward
HOOK_CHANGED_SIZE = "hook '{name}' has changed the size of value"
HOOK_CHANGED_TYPE = ("hook '{name}' has changed the type of value (was tensorgrad.{was} got "
                     "tensorgrad.{got})")  # (the legacy type names: Tensor.type())
# tests/spec/test_s5_modes_inplace_hooks.py::test_hook_returning_non_tensor_raises
HOOK_BAD_RETURN = "expected Variable, but hook returned '{type_name}'"

# tests/spec/test_s5_modes_inplace_hooks.py::test_detach_underscore_on_view_raises
DETACH_VIEW_IN_PLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)

# tests/spec/test_s3_backward.py::test_assigning_grad_of_wrong_size_raises
GRAD_ASSIGN_SIZE = (
    "attempting to assign a gradient of size '{grad_size}' to a tensor of size '{size}'. "
    "Please ensure that the gradient and the tensor are the same size"
)
# tests/spec/test_s3_backward.py::test_assigning_grad_of_wrong_dtype_raises
GRAD_ASSIGN_DTYPE = (
    "attempting to assign a gradient with dtype '{grad_dtype}' to a tensor with grad_dtype "
    "'{dtype}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
    "You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any "
    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
    "break downstream systems that assume they match."
)

# tests/spec/test_s2_nodes.py::test_1d_T_warns_on_first_use_in_a_process
TRANSPOSE_1D = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*tensorgrad.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)

# tests/spec/test_s2_nodes.py::test_0d_T_warns_that_it_is_the_identity
TRANSPOSE_0D = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."

# tests/spec/test_s6_broadcasting.py::test_incompatible_shapes_raise
BROADCAST_MISMATCH = (
    "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
    "dimension {dim}"
)

# tests/spec/test_s6_broadcasting.py::test_matmul_shape_mismatch_raises
MATMUL_MISMATCH = "mat1 and mat2 shapes cannot be multiplied ({a0}x{a1} and {b0}x{b1})"

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


# -- forward-mode AD (tests/test_forward_ad.py) ------------------------------------------------
NESTED_FORWARD_AD = "Nested forward mode AD is not supported at the moment"

EXIT_UNKNOWN_DUAL_LEVEL = (
    "Trying to exit a forward AD level that was not the last one that was created. This is not "
    "supported."
)

MAKE_DUAL_WITHOUT_LEVEL = (
    "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
    "enter_dual_level() first."
)

TANGENT_NOT_FLOATING = "Expected tangent to be floating point or complex, but got: {dtype}"

TANGENT_SIZE = (
    "Trying to set a forward gradient that has a different size than that of the original "
    "Tensor, this is not supported. Tensor is of size {size} while the given forward gradient is "
    "of size {tangent_size}."
)

# PyTorch's text goes on: "Please file an issue to PyTorch at ...". Here it is tensorgrad that
# lacks the rule, so that line is left out.
FORWARD_AD_NOT_IMPLEMENTED = (
    "Trying to use forward AD with {name} that does not support it because it has not been "
    "implemented yet."
)

# ... and for an operation PyTorch itself gives no derivative (floor_divide_)
FORWARD_AD_NOT_SUPPORTED = "Trying to use forward AD with {name} that does not support it."

# -- autograd.functional.jacobian's strategies (tests/test_forward_ad.py) -----------------------
JACOBIAN_STRATEGY = (
    'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has '
    'more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to '
    'use "reverse-mode".'
)

# (PyTorch's own text lacks the space in "isonly"; kept as it is, so that both print the same.)
JACOBIAN_FORWARD_NEEDS_VECTORIZE = (
    "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
    "`vectorize=True`."
)

JACOBIAN_FORWARD_CREATE_GRAPH = (
    'tensorgrad.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` '
    'are not supported together (yet). Please either set `create_graph=False` or '
    '`strategy="reverse-mode"`.'
)

JACOBIAN_FORWARD_STRICT = (
    'tensorgrad.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
    'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
)

JACOBIAN_VECTORIZE_STRICT = (
    "tensorgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
    "supported together. Please either set `strict=False` or `vectorize=False`."
)

# -- saved-tensor hooks (tests/test_saved_tensor_hooks.py) ----------------------------------------
UNPACK_HOOK_NOT_TENSOR = (
    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type_name}"
)

# retain_grad(), then detach_(), then an in-place change that records a node: PyTorch keeps the
# retains_grad flag through detach_ and its internal assert refuses the move (measured, 2.13.0)
RETAINED_GRAD_WITHOUT_GRAD_FN = (
    'old_fn INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/autograd/variable.cpp":205, '
    "please report a bug to PyTorch. "
)

# -- argument checks (tensorgrad/arguments.py): PyTorch's python arg parser, word for word ---------
ARGUMENT_TYPE = "{name}(): argument '{argument}'{where} must be {expected}, not {got}"
INT_LIST_ELEMENT = ("{name}(): argument '{argument}'{where} must be tuple of ints, but found "
                    "element of type {element} at pos 0")
INT_LIST_UNPACK = ("{name}(): argument '{argument}' failed to unpack the object at pos {pos} "
                   "with error \"type must be tuple of ints,but got {got}\"")
# a bool tensor in a list of ints: PyTorch reads an int64 out of it and fails (`zeros(2, tensor(True))`)
SCALAR_NOT_INTEGRAL = ("Expected scalar.isIntegral( false) to be true, but got false.  (Could this "
                       "error message be improved?  If so, please report an enhancement request "
                       "to PyTorch.)")
TENSOR_LIST_ELEMENT = "expected Tensor as element {index} in argument {position}, but got {got}"
TAKES_POSITIONAL = "{name}() takes {count} positional argument{s} but {given} {were} given"
# (PyTorch writes "1 required positional arguments" and "2 required positional argument")
MISSING_ARGUMENTS = "{name}() missing {count} required positional argument{s}: {names}"
UNEXPECTED_KEYWORD = "{name}() got an unexpected keyword argument '{keyword}'"
MULTIPLE_VALUES = "{name}() got multiple values for argument '{keyword}'"
INVALID_COMBINATION = ("{name}() received an invalid combination of arguments - got {got}, "
                       "but expected one of:")
INVALID_COMBINATION_ONE = ("{name}() received an invalid combination of arguments - got {got}, "
                           "but expected {expected}")
# tensorgrad's own: it has no out= (PyTorch writes the result into the given tensor)
NO_OUT_ARGUMENT = ("{name}(): tensorgrad does not support the out= argument; use the returned "
                   "tensor instead (or copy it in with out.copy_(result))")

# -- making a tensor from Python data (creation.py), as PyTorch's tensor() says it ---------------
RAGGED = "expected sequence of length {length} at dim {dim} (got {got})"
ONE_ELEMENT_TENSORS = "only one element tensors can be converted to Python scalars"
INT_OVERFLOW = "Overflow when unpacking long long"
PROBABILITIES_NOT_FLOAT = ("Expected floating point type for target with class probabilities, "
                           "got {dtype}")
STORAGE_OVERFLOW_STRIDES = ("Storage size calculation overflowed with sizes={sizes} and "
                            "strides={strides}")
AUTOGRAD_DTYPE = "Autograd not support dtype: {dtype}"  # (an integer result that requires grad)
SLICE_INDICES = "slice indices must be integers or None or have an __index__ method"
INTEGER_REQUIRED = "an integer is required"  # (a NumPy uint64 beyond int64, as a number)
FLOAT_TO_INT_OVERFLOW = "value cannot be converted to type int64 without overflow"
INVALID_DATA_TYPE = "new(): invalid data type '{type_name}'"
NUMPY_TYPE = ("can't convert np.ndarray of type {type_name}. The only supported types are: "
              "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
              "uint64, uint32, uint16, uint8, and bool.")
NUMPY_BYTE_ORDER = ("given numpy array has byte order different from the native byte order. "
                    "Conversion between byte orders is currently not supported.")
NUMPY_NEGATIVE_STRIDES = ("At least one stride in the given numpy array is negative, and tensors "
                          "with negative strides are not currently supported. (You can probably "
                          "work around this by making a copy of your array  with array.copy().) ")
CANNOT_INFER_DTYPE = "Could not infer dtype of {type_name}"
TOO_MANY_DIMENSIONS = "too many dimensions '{type_name}'"
# tensorgrad's own: PyTorch allows more dimensions, NumPy (so tensorgrad) at most 64
MORE_THAN_64_DIMS = ("tensorgrad tensors have at most {limit} dimensions (NumPy's limit), but "
                     "the data is nested deeper. Reshape it to fewer dimensions first.")

# -- value checks of single operations --------------------------------------------------------------
ARANGE_STEP_SIGN = "upper bound and lower bound inconsistent with step sign"
ARANGE_SIZE = "invalid size, possible overflow?"
UNSIGNED_PROMOTION = ("Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                      "promote {dtype} and UInt64")
INT64_OVERFLOW = "value cannot be converted to type int64_t without overflow"
NOT_IMPLEMENTED_FOR = "\"{kernel}\" not implemented for '{dtype}'"
INTEGER_DIVISION_BY_ZERO = "ZeroDivisionError"
DEGREES_OF_FREEDOM = ("{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).")
AMBIGUOUS_BOOL = {False: "Boolean value of Tensor with more than one value is ambiguous",
                  True: "Boolean value of Tensor with no values is ambiguous"}  # (empty?)
INDEX_PUT_DTYPES = ("Index put requires the source and destination dtypes match, got {destination} "
                    "for the destination and {source} for the source.")
INDEX_PUT_SHAPES = "shape mismatch: value tensor of shape {value} cannot be broadcast to indexing result of shape {places}"
SYMINT_SIZE = "IntArrayRef contains an int that cannot be represented as a SymInt: {size}"
STORAGE_OVERFLOW = "Storage size calculation overflowed with sizes={sizes}"
CANNOT_ALLOCATE = ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                   "allocate memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot "
                   "allocate memory)")
BOOL_POSITIVE = "The `+` operator, on a bool tensor is not supported."
NEGATIVE_STD = "normal expects std >= 0.0, but found std {std:g}"
UNIFORM_RANGE = "uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
NEGATIVE_TOLERANCE = "{name} must be greater than or equal to zero, but got {value:g}"
MODULE_TO_DTYPE = ("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                   "dtype={dtype}")
LEGACY_NOT_A_SEQUENCE = "new(): data must be a sequence (got {type_name})"
# the legacy constructor (`t.new(...)`, `Tensor(...)`): another device, another tensor's dtype
LEGACY_DEVICE = "legacy constructor expects device type: cpu but device type: {type} was passed"
LEGACY_OTHER_DTYPE = "expected {expected} (got {got})"
TENSOR_OPTIONS = ("TensorOptions(dtype={dtype}, device=cpu, layout=Strided, requires_grad=false "
                  "(default), pinned_memory=false (default), memory_format=(nullopt))")
C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool",
                "uint8": "unsigned char"}  # (a NumPy byte mask: x[array] = 0)
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
# tensorgrad's own where PyTorch compares first ("'<' not supported between instances of ...")
# an int out of PyTorch's int64 (its uint64 for a Scalar), as its argument parser unpacks it
# (INT_OVERFLOW above); tests/test_misuse.py (kinds: 2 ** 70)
NEGATIVE_DEVICE_INDEX = "Device index must not be negative"
PIN_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
              "allocator is available on this system.")
INT_TOO_BIG = "int too big to convert"
NEGATIVE_TO_UNSIGNED = "can't convert negative int to unsigned"
INT_LIST_OVERFLOW = ("{name}(): argument '{argument}' failed to unpack the object at pos {pos} "
                     "with error \"Overflow when unpacking long long\"")
NOT_A_NUMBER_ARGUMENT = "{name}(): argument '{argument}' must be a number, not {type_name}"
OPTIMIZER_PARAMS = ("params argument given to the optimizer should be an iterable of Tensors or "
                    "dicts, but got {type_name}")
CLOSURE_NOT_CALLABLE = ("step(): closure must be a function that re-evaluates the model and "
                        "returns the loss, not {type_name}")
GRAD_IS_SELF = "can't assign Variable as its own grad"
NO_CUDA = "tensorgrad not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
# tensorgrad's own, for a device type PyTorch knows but this machine (and tensorgrad) has not
NO_SUCH_DEVICE = "tensorgrad computes on the CPU only; there is no {device} device (use 'cpu')"
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
# backward()'s and grad()'s flags, read as a C unsigned byte (PyTorch's engine; Python's own words)
FLAG_TOO_LARGE = "Python int too large to convert to C long"
FLAG_OUTSIDE_BYTE = {False: "unsigned byte integer is greater than maximum",
                     True: "unsigned byte integer is less than minimum"}
# tensorgrad's own: its clamp has no derivative for tensor bounds (PyTorch's has)
CLAMP_BOUND_REQUIRES_GRAD = (
    "tensorgrad's clamp does not compute gradients for tensor bounds that require grad. Use "
    "tensorgrad.maximum(x, low) and tensorgrad.minimum(x, high) instead: they give gradients "
    "to both sides.")
NOT_A_NUMBER = {"an integer": "'{type_name}' object cannot be interpreted as an integer",
                "a real number": "must be real number, not {type_name}"}
# tensorgrad's own: a keyword PyTorch takes that tensorgrad has no use for (generator=, ...)
UNSUPPORTED_KEYWORD = "{name}(): tensorgrad does not support the {keyword}= argument"

# tensorgrad's own (PyTorch fails only at the next step, with KeyError: 'step'): tests/test_optim.py
OTHER_OPTIMIZER_STATE = (
    "loaded state dict was saved by another kind of optimizer: {name} cannot use its entries "
    "({found}); load it into the same optimizer class it was saved from"
)

# bmm of a tensor that is not a batch of matrices
NOT_3D = "{name} must be a 3D tensor"

# a function that takes nothing (torch.is_grad_enabled()) or a Tensor method that takes nothing
# but the tensor (x.exp(), x.item()), given more: PyTorch's C functions and methods say so in
# these words, `name` being "torch.is_grad_enabled" or "TensorBase.exp" (arguments.takes_no_arguments)
NO_KEYWORD_ARGUMENTS = "{name}() takes no keyword arguments"
NO_ARGUMENTS = "{name}() takes no arguments ({given} given)"

# a tensor's read-only attributes (t.shape = ..., del t.grad_fn), and its data
NOT_WRITABLE = "attribute '{name}' of 'tensorgrad._C.TensorBase' objects is not writable"
DATA_NOT_A_TENSOR = "Variable data has to be a tensor, but got {type_name}"
FLOAT_ALPHA = "For integral input tensors, argument alpha must not be a floating point number."
NO_DIMENSIONS = "Dimension specified as {dim} but tensor has no dimensions"
DATA_NOT_FLOATING = ("data set to a tensor that requires gradients must be floating point or "
                     "complex dtype")
DELETE_DATA = "Deleting tensor data is not allowed. Delete tensor instead!"

# indexing (ops/indexing.py): a 0-d tensor indexed by an integer, a complex number written in
INDEX_OF_0_DIM = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
# Tensor.type (tensor_methods.py): a Python type, or neither a type, a name nor a dtype
INVALID_TYPE = "invalid type: '{name}'"
TYPE_WHAT = "dtype must be a type, str, or dtype object"
# max, min, amax, amin, argmax, argmin of a tensor without elements (ops/reduction.py)
EMPTY_REDUCTION = {
    RuntimeError: ("{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                   "Specify the reduction dim with the 'dim' argument."),
    IndexError: "{name}(): Expected reduction dim to be specified for input.numel() == 0."}
EMPTY_REDUCTION_DIM = "{name}(): Expected reduction dim {dim} to have non-zero size."
# tensorgrad's own: it has no complex dtypes (PyTorch makes a complex tensor)
NO_COMPLEX = "tensorgrad has no complex dtypes: a {type_name} cannot be combined with a tensor"
# PyTorch's CPU kernels that have no complex version: a complex number beside a real tensor makes
# the operation complex, and its kernel refuses (NOT_IMPLEMENTED_FOR, 'ComplexFloat'), where
# another operation makes a complex tensor (tensorgrad: NO_COMPLEX). By operation (the in-place
# forms refuse at the cast first: CANNOT_CAST); div's by its rounding mode (measured).
NO_COMPLEX_KERNEL = {"lt": "lt_cpu", "le": "le_cpu", "gt": "gt_cpu", "ge": "ge_cpu",
                     "floor_divide": "div_floor_cpu", "remainder": "remainder_cpu",
                     "bitwise_and": "bitwise_and_cpu", "bitwise_or": "bitwise_or_cpu",
                     "bitwise_xor": "bitwise_xor_cpu", "bitwise_left_shift": "lshift_cpu",
                     "bitwise_right_shift": "rshift_cpu", ("div", "floor"): "div_floor_cpu",
                     ("div", "trunc"): "div_trunc_cpu"}
# ... and the operations whose result a complex number leaves real: equality (a bool tensor)
COMPLEX_COMPARED = frozenset(("eq", "ne"))
# a NumPy function of a tensor whose result NumPy computed in a dtype tensorgrad has not
# (tensor_methods.py, Tensor.__array_wrap__: np.exp of a bool tensor is float16 in NumPy)
NUMPY_RESULT_DTYPE = ("NumPy computed this result from a tensor in {dtype}, which tensorgrad does "
                      "not have (its dtypes are float32, float64, int64 and bool): {advice}")
# torch.norm's Python code takes len(dim) of a dim that is not a Python int
NO_LEN = "object of type '{type_name}' has no len()"
LEN_OF_0D = "len() of a 0-d tensor"
LEN_OF_UNSIZED = "len() of unsized object"  # (NumPy's, of a 0-d array)
# an in-place write (ops/inplace.py), and the ones inside PyTorch's kernels: F.dropout of an
# integer tensor, F.binary_cross_entropy_with_logits of integer targets; F.batch_norm's dtypes
# (nn/functional.py)
CANNOT_CAST = "result type {result} can't be cast to the desired output type {output}"
# a tensor argument that PyTorch's derivative table gives no formula for (a loss's weight,
# pos_weight), requiring grad while grad mode is on: its autograd refuses before computing
NOT_DIFFERENTIABLE = ("The function '{function}' is not differentiable with respect to argument "
                      "'{argument}'. This input cannot have requires_grad True.")
BATCH_NORM_PARAMETER_DTYPE = "mixed dtype (CPU): expect parameter to have scalar type of Float"
BATCH_NORM_MIXED_DTYPES = "mixed dtype (CPU): all inputs must share same datatype."
# Adam's betas (optim/adam.py): PyTorch's Python code takes floats (or tensors)
ADAM_BETAS = "betas must be either both floats or both Tensors"
CAPTURABLE_DEVICES = ("If capturable=True, params and state_steps must be on supported devices: "
                      "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")
# F.linear of a 0-d tensor (nn/functional.py)
LINEAR_0D = "both arguments to linear need to be at least 1D, but they are {a}D and {b}D"
# Tensor.roll (ops/shape.py)
ROLL_NO_SHIFTS = "`shifts` required"
ROLL_MISALIGNED = "shifts and dimensions must align. shifts: {shifts}, dims:{dims}"
FLOAT_ALPHA = "For integral input tensors, argument alpha must not be a floating point number."
COMPLEX_ALPHA = "For non-complex input tensors, argument alpha must not be a complex number."
NO_DIMENSIONS = "Dimension specified as {dim} but tensor has no dimensions"
COMPLEX_VALUE = "value cannot be converted to type {type_name} without overflow"
C_SCALAR_NAMES = {"float32": "float", "float64": "double", "int64": "int64_t"}
# `in` with something that is neither a tensor nor a number; `~` of a floating-point tensor
CONTAINS_WHAT = "Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type}."
INVERT_FLOAT = "~ (operator.invert) is only implemented on integer and Boolean-type tensors"

# nn.Parameter(data, requires_grad): tensorgrad's words where PyTorch's code fails on a non-tensor,
# and PyTorch's (from the function it hands the flag to) for a flag that is not a bool
PARAMETER_DATA = "Parameter(): argument 'data' must be Tensor, not {type_name}"
PARAMETER_FLAG = "_make_subclass(): argument 'require_grad' (position 3) must be bool, not {type_name}"

# autograd.grad(only_inputs=False): ignored, with PyTorch's FutureWarning
ONLY_INPUTS_DEPRECATED = (
    "only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
    "gradient for other parts of the graph, please use tensorgrad.autograd.backward.")
# x[[0, [1]]]: a list holding a sequence is read as a tuple of indices, with PyTorch's warning
NON_TUPLE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
    "tensor index, x[tensorgrad.tensor(seq)], which will result either in an error or a different "
    "result")
# x[np.array([1, 0], dtype=np.uint8)]: a byte index is a mask to PyTorch, with its warning
BYTE_INDEX = ("indexing with dtype tensorgrad.uint8 is now deprecated, please use a dtype "
              "tensorgrad.bool instead.")
# t.masked_fill(mask, value): the mask must be bool, a tensor value 0-d (C type names of the mask)
MASKED_FILL_MASK = "masked_fill_ only supports boolean masks, but got mask with dtype {c_type}"
MASKED_FILL_VALUE = ("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                     "with {ndim} dimension(s).")
C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool",
                "uint8": "unsigned char"}  # (a NumPy byte mask: x[array] = 0)
# a tensor that requires grad written into an integer result (`int_t.masked_fill(m, w)`)
AUTOGRAD_DTYPE = "Autograd not support dtype: {dtype}"
# x.new_tensor(a_tensor): COPY_CONSTRUCT, with the method's name
COPY_CONSTRUCT_NEW = COPY_CONSTRUCT.replace("tensorgrad.tensor(", "tensor.new_tensor(")
# t.index_select(dim, index): PyTorch's checks, in its order
INDEX_SELECT_VECTOR = "index_select(): Index is supposed to be a vector"
INDEX_SELECT_DTYPE = "index_select(): Expected dtype int32 or int64 for index"
INDEX_SELECT_BOUNDS = "INDICES element is out of DATA bounds, id={index} axis_dim={size}"
INDEX_SELECT_EMPTY_DIM = "index_select(): self indexing axis dim should be positive"
INDEX_SELECT_SCALAR = "index_select(): Index to scalar can have only 1 value, got {count} value(s)"
INDEX_OUT_OF_RANGE_IN_SELF = "index out of range in self"
# tensorgrad.finfo / iinfo of a dtype of the other kind
FINFO_NOT_FLOAT = ("tensorgrad.finfo() requires a floating point input type. Use tensorgrad.iinfo "
                   "to handle 'tensorgrad.finfo'")
IINFO_NOT_INTEGER = ("tensorgrad.iinfo() requires an integer input type. Use tensorgrad.finfo to "
                     "handle 'tensorgrad.iinfo'")
IINFO_BOOL = "tensorgrad.bool is not supported by tensorgrad.iinfo"

# -- torch.nn.utils.clip_grad_norm_ and clip_grad_value_ (tensorgrad/nn/utils/clip_grad.py) ------
# tests/spec/test_s17_clip_grad.py
CLIP_NONFINITE = (
    "The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
    "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
    "anyway, set `error_if_nonfinite=False`")
CLIP_EMPTY_GENERATOR = "`parameters` is an empty generator, no gradient clipping will occur."
CLIP_GRAD_NORM_DEPRECATED = ("`tensorgrad.nn.utils.clip_grad_norm` is now deprecated in favor of "
                             "`tensorgrad.nn.utils.clip_grad_norm_`.")
# clip_grad_value_ with no gradients to clip: PyTorch's foreach kernel refuses the empty list
FOREACH_EMPTY = ("Expected !nested_tensorlist[0].empty() to be true, but got false.  (Could this "
                 "error message be improved?  If so, please report an enhancement request to "
                 "PyTorch.)")
# clip_grads_with_norm_'s total_norm multiplies every gradient as a 0-d tensor
SCALAR_TENSOR_EXPECTED = ("scalar tensor expected to be 0 dim but it has {ndim} dimensions and "
                          "{numel} elements.")
# tensorgrad's own where PyTorch leaks "'float' object has no attribute 'grad'"
CLIP_NOT_A_PARAMETER = ("{name}(): parameters must be a Tensor or an iterable of Tensors, but one "
                        "of them is {type_name}")

# -- a loss's tensors read with `.size()` by PyTorch's Python code (arguments.read_sizes) ---------
# tests/spec/test_s17_loss_kinds.py: `F.mse_loss(t, 1.0)`, `F.mse_loss(t, np.ones(3))`
NO_SIZE = "'{type_name}' object has no attribute 'size'"
NO_SIZE_OF_TYPE = "type object '{name}' has no attribute 'size'"  # (a class: `F.mse_loss(t, bool)`)
NOT_CALLABLE = "'{type_name}' object is not callable"
