"""minigrad: a from-scratch NumPy autograd engine that behaves like PyTorch.

``import minigrad as torch`` runs the supported subset of PyTorch code unchanged: tensors with
``grad_fn``/``next_functions``/``AccumulateGrad`` graphs named as PyTorch names them, version
counters, ``retain_graph``, ``nn.Module`` registration and hooks, ``optim.SGD``/``Adam``.
"""

from . import _dtype
from ._creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from ._defaults import get_default_dtype, set_default_dtype
from ._device import device, get_default_device, set_default_device
from ._generator import (
    Generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._generator import default as default_generator
from ._random import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from ._dtype import bool_ as bool  # noqa: A001  (minigrad.bool, like torch.bool)
from ._dtype import dtype, float16, float32, float64, int32, int64, uint8
from ._dtype import bfloat16, int8, int16  # (bfloat16 needs the optional ml_dtypes)
from ._type_info import finfo, iinfo
from ._type_promotion import can_cast, promote_types, result_type
from ._memory_format import contiguous_format, memory_format, preserve_format
from ._ops import activation as _activation  # noqa: F401  (attaches Tensor methods)
from ._ops import indexing as _indexing  # noqa: F401
from ._ops import inplace as _inplace  # noqa: F401
from ._ops import random as _random_ops  # noqa: F401
from ._ops.activation import log_softmax, relu, softmax
from ._ops.linalg import addmm, bmm, dot, matmul, mm, mv
from ._ops.pointwise import (
    abs,
    add,
    allclose,
    ceil,
    clamp,
    cos,
    div,
    eq,
    equal,
    exp,
    floor,
    ge,
    gt,
    isclose,
    isfinite,
    isnan,
    le,
    log,
    logical_not,
    lt,
    masked_fill,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    pow,
    reciprocal,
    rsqrt,
    rsub,
    sigmoid,
    sgn,
    sign,
    sin,
    sqrt,
    square,
    sub,
    tanh,
    where,
)
from ._ops.pointwise_binary import (
    addcdiv,
    addcmul,
    atan2,
    fmax,
    fmin,
    fmod,
    hypot,
    lerp,
    remainder,
)
from ._ops.pointwise_unary import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    clamp_max,
    clamp_min,
    cosh,
    exp2,
    expm1,
    fix,
    frac,
    isinf,
    isneginf,
    isposinf,
    log1p,
    log2,
    log10,
    nan_to_num,
    round,
    sinh,
    tan,
    trunc,
)
from ._ops.reduction import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    std,
    sum,
    var,
)
from ._ops.reduction_more import (
    count_nonzero,
    cumprod,
    cumsum,
    logcumsumexp,
    norm,
    prod,
    std_mean,
    var_mean,
)
from ._ops.shape import (
    cat,
    chunk,
    clone,
    flatten,
    narrow,
    permute,
    reshape,
    split,
    squeeze,
    stack,
    t,
    transpose,
    unbind,
    unsqueeze,
)
from ._tensor import Size, Tensor
from .serialization import load, save
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled


def is_inference(input) -> bool:  # noqa: A002  (PyTorch's argument name)
    """True if ``input`` was created in inference mode (``torch.is_inference``).

    Raises:
        TypeError: ``input`` is not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input._inference


float = float32  # noqa: A001
double = float64
long = int64
int = int32  # noqa: A001
half = float16
short = int16
clip = clamp
arctan2 = atan2
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
absolute, negative = abs, neg

def is_tensor(obj) -> bool:
    """True if ``obj`` is a minigrad Tensor (or Parameter) (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:  # noqa: A002
    """True if ``input`` has a floating dtype (``torch.is_floating_point``).

    Raises:
        TypeError: ``input`` is not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_floating_point(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    return input.is_floating_point()


def numel(input) -> int:  # noqa: A002
    """Number of elements of ``input`` (``torch.numel``).

    Raises:
        TypeError: ``input`` is not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.numel()


from . import (  # noqa: E402
    autograd,  # noqa: E402
    backends,
    cuda,
    func,
    linalg,
    nn,
    optim,
    profiler,
    utils,
)

__version__ = "0.1.0"

# The public API: what ``from minigrad import *`` exports and the API reference documents.
__all__ = [
    "arange", "as_tensor", "default_generator", "empty", "eye", "from_numpy", "full", "full_like",
    "linspace", "manual_seed", "ones", "ones_like", "rand", "rand_like", "randint", "randn",
    "randn_like", "randperm", "get_rng_state", "set_rng_state", "tensor", "zeros", "zeros_like",
    "bool", "dtype", "float16",
    "float32", "float64", "int32", "int64", "uint8", "log_softmax", "relu", "softmax", "addmm",
    "bmm", "dot", "matmul", "mm", "mv", "abs", "add", "ceil", "clamp", "clamp_min", "cos", "div",
    "eq", "exp", "floor", "ge", "gt", "isfinite", "isnan", "le", "log", "logical_not", "lt",
    "masked_fill", "maximum", "minimum", "mul", "ne", "neg", "pow", "reciprocal", "round", "rsqrt",
    "rsub", "sigmoid", "sgn", "sign", "sin", "sqrt", "square", "sub", "tanh", "where", "allclose",
    "equal",
    "isclose", "all", "amax", "amin", "any", "argmax", "argmin", "logsumexp", "max", "mean", "min",
    "std", "sum", "var", "cat", "chunk", "clone", "flatten", "narrow", "permute", "reshape",
    "split", "squeeze", "stack", "t", "transpose", "unbind", "unsqueeze", "Size", "Tensor",
    "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
    "set_grad_enabled", "float", "double", "long", "int", "half", "clip", "save", "load",
    "memory_format", "preserve_format", "contiguous_format", "is_inference",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "device", "get_default_device", "set_default_device", "get_default_dtype",
    "set_default_dtype", "Generator", "seed", "initial_seed", "is_tensor", "is_floating_point",
    "numel", "empty_like", "logspace", "randint_like", "normal", "bernoulli", "multinomial",
    # pointwise (issue 19)
    "addcdiv", "addcmul", "atan2", "arctan2", "fmax", "fmin", "fmod", "hypot", "lerp",
    "remainder", "acos", "acosh", "asin", "asinh", "atan", "atanh", "clamp_max", "cosh", "exp2",
    "expm1", "fix", "frac", "isinf", "isneginf", "isposinf", "log1p", "log2", "log10",
    "nan_to_num", "sinh", "tan", "trunc", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
    "arctanh", "absolute", "negative",
    # dtypes (issue 19)
    "bfloat16", "int8", "int16", "short", "finfo", "iinfo", "can_cast", "promote_types",
    "result_type",
    # reductions (issue 19)
    "count_nonzero", "cumprod", "cumsum", "logcumsumexp", "norm", "prod", "std_mean",
    "var_mean",
]


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from ._namespace import public_dir

    return public_dir(globals())

# Issue 19 (indexing, shape, linalg and sorting ops): appended here, away from the lists above,
# so that merges with the other families stay simple.
from ._ops.index_ops import (  # noqa: E402
    argwhere,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_select,
    masked_scatter,
    masked_select,
    nonzero,
    put,
    take,
    unique,
)
from ._ops.scatter_gather import (  # noqa: E402
    gather,
    scatter,
    scatter_add,
    scatter_reduce,
    take_along_dim,
)

__all__ += [
    "argwhere", "index_add", "index_copy", "index_fill", "index_put", "index_select",
    "masked_scatter",
    "masked_select", "nonzero", "put", "take", "unique", "gather", "scatter", "scatter_add",
    "scatter_reduce", "take_along_dim",
]
from ._ops.transform import (  # noqa: E402
    diag,
    diag_embed,
    diagflat,
    diagonal,
    flip,
    fliplr,
    flipud,
    roll,
    rot90,
    trace,
    tril,
    triu,
)

__all__ += ["diag", "diag_embed", "diagflat", "diagonal", "flip", "fliplr", "flipud", "roll",
            "rot90", "trace", "tril", "triu"]
from ._ops.shape_more import (  # noqa: E402
    as_strided,
    broadcast_to,
    dsplit,
    hsplit,
    meshgrid,
    movedim,
    repeat_interleave,
    swapdims,
    tensor_split,
    tile,
    vsplit,
)

moveaxis = movedim
swapaxes = swapdims
split_with_sizes = split
__all__ += ["as_strided", "broadcast_to", "dsplit", "hsplit", "meshgrid", "movedim", "moveaxis",
            "repeat_interleave", "swapaxes", "swapdims", "tensor_split", "tile", "vsplit",
            "split_with_sizes"]
from ._ops.shape import unflatten  # noqa: E402

__all__ += ["unflatten"]
from ._ops.linalg_more import addbmm, addmv, baddbmm, cross, einsum, ger, outer  # noqa: E402

__all__ += ["addbmm", "addmv", "baddbmm", "cross", "einsum", "outer", "ger"]
from . import return_types  # noqa: E402
from ._ops.sorting import (  # noqa: E402
    argsort,
    bucketize,
    kthvalue,
    median,
    mode,
    msort,
    nanmedian,
    searchsorted,
    sort,
    topk,
    unique_consecutive,
)

__all__ += ["argsort", "bucketize", "kthvalue", "median", "mode", "msort", "nanmedian",
            "searchsorted", "sort", "topk", "unique_consecutive"]
from ._ops import resize as _resize  # noqa: E402, F401  (Tensor.resize_, resize_as_)
from ._ops.logical import logical_and, logical_or, logical_xor  # noqa: E402

__all__ += ["logical_and", "logical_or", "logical_xor"]
from ._ops.floor_divide import (  # noqa: E402
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    not_equal,
)

__all__ += ["floor_divide", "greater", "greater_equal", "less", "less_equal", "not_equal"]
from ._ops.bitwise import (  # noqa: E402
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
)

__all__ += ["bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
            "bitwise_right_shift", "bitwise_xor"]
from ._ops.inplace_forms import FUNCTIONS as _INPLACE_FUNCTIONS  # noqa: E402

globals().update(_INPLACE_FUNCTIONS)  # torch.sin_(x), torch.relu_(h), ... (x.sin_() ...)
__all__ += sorted(_INPLACE_FUNCTIONS)
from .nn.functional import cosine_similarity, pairwise_distance  # noqa: E402

__all__ += ["cosine_similarity", "pairwise_distance"]
from ._ops.out import add_out_forms as _add_out_forms  # noqa: E402

_add_out_forms(globals())  # out= on the torch functions that PyTorch gives one (issue 19)
