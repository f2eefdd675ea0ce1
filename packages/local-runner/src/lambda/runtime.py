# The runtime of one Python execution environment: a process of its own, started as `python3 runtime.py` in the
# function's code folder, which imports the function's handler once, then answers invocations one at a time through
# Lambda's Runtime API (runtime-api.ts serves it; AWS_LAMBDA_RUNTIME_API names it), as runtime.mjs does for Node.js.
#
# Lambda's managed Python runtimes run awslambdaric (aws/aws-lambda-python-runtime-interface-client), started by
# /var/runtime/bootstrap.py of the Python base images (aws/aws-lambda-base-images). awslambdaric needs a native
# extension and simplejson, so this is a stdlib-only client (Python 3.9+) that does what a function can observe of it:
# the handler's lookup and its init errors (awslambdaric/bootstrap.py: _get_handler, and
# lambda_runtime_exception.py for the error types), the event and the context (lambda_context.py), the result as JSON
# (lambda_runtime_marshaller.py), the error body and how errors are logged (bootstrap.py: make_error, log_error,
# handle_event_request), and the root logger's handler and formats (bootstrap.py: _setup_logging,
# lambda_runtime_log_utils.py). The log goes where awslambdaric writes it when it has no telemetry file descriptor
# (its StandardLogSink): to stdout, which the runner reads line by line as the function's log.
#
# Its environment, as Lambda gives it: AWS_LAMBDA_RUNTIME_API, _HANDLER, LAMBDA_TASK_ROOT, AWS_LAMBDA_FUNCTION_NAME,
# AWS_LAMBDA_FUNCTION_VERSION, AWS_LAMBDA_FUNCTION_MEMORY_SIZE, AWS_LAMBDA_LOG_GROUP_NAME, AWS_LAMBDA_LOG_STREAM_NAME,
# and optionally AWS_LAMBDA_LOG_FORMAT (JSON), AWS_LAMBDA_LOG_LEVEL and AWS_EXECUTION_ENV (AWS_Lambda_python3.12...).
# PYTHONPATH is the runner's: the function's layers, then (where neither they, the code nor the machine's python3
# has boto3) the runner's cache's boto3 folder (python-sdk.ts).
import decimal
import http.client
import importlib
import json
import logging
import math
import os
import secrets
import signal
import site
import sys
import sysconfig
import time
import traceback
import urllib.parse

RUNTIME_FILE = os.path.abspath(__file__)


def take_over():
    """
    A spare (spares.ts: `--spare` for its settings), started before any function needed it, with nothing of one
    imported: it waits here until a cold start hands it the function's environment, then goes on as a runtime started
    for the function would: the function's variables exactly (none of the spare's own), its folder, its settings, its
    time zone (time.tzset), and PYTHONPATH's folders where Python puts them as it starts (after this script's folder).
    What Python reads only as it starts (the PYTHON* settings, the locale) is the spare's own start's, the same.
    """
    # Ready: the runner's start waits for it; nothing of the function's has it.
    os.close(3)
    given = sys.stdin.buffer.read()
    # Its input closed with nothing: the runner is gone, or stopped it.
    if not given:
        os._exit(0)
    handover = json.loads(given)
    os.environ.clear()
    os.environ.update(handover["env"])
    os.chdir(handover["cwd"])
    time.tzset()
    sys.argv[1:] = [handover["settings"]]
    sys.path[1:1] = [folder for folder in os.environ.get("PYTHONPATH", "").split(os.pathsep) if folder]


if sys.argv[1:] == ["--spare"]:
    take_over()

# No __pycache__ written next to the function's code or its layers: on Lambda, /var/task and /opt are read-only.
sys.dont_write_bytecode = True

# Only the runner ends an environment, as only Lambda does there: pool.ts starts each in a process group of its own,
# out of reach of a terminal's Ctrl-C, and a signal sent to it anyway leaves it serving (runtime.mjs does the same). A handler that does nothing rather than SIG_IGN:
# the processes a function starts get the default dispositions back, as they do on Lambda.
for _signal in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(_signal, lambda number, frame: None)

# --- The result as JSON (lambda_runtime_marshaller.py) ---------------------------------------------------------------
# awslambdaric encodes with simplejson: a Decimal as its own digits (RawJSON of str()), a NaN Decimal as NaN, NaN and
# Infinity floats allowed, bytes inside a value as UTF-8 text (simplejson's default encoding), and non-ASCII characters
# escaped except on python3.12 and later (ensure_ascii=False for those AWS_EXECUTION_ENV values). The standard
# library's encoder cannot write raw text, so each Decimal is written as a placeholder string that is then replaced by
# its digits. (simplejson also writes a namedtuple as an object, where this writes an array.)
_UNESCAPED_ENVS = {"AWS_Lambda_python3.12", "AWS_Lambda_python3.13", "AWS_Lambda_python3.14", "AWS_Lambda_python3.15"}
_RAW_MARK = "\x00raw-" + secrets.token_hex(8) + "-"


class _Encoder(json.JSONEncoder):
    def __init__(self):
        super().__init__(ensure_ascii=os.environ.get("AWS_EXECUTION_ENV") not in _UNESCAPED_ENVS, allow_nan=True)
        self.raw = []

    def default(self, o):
        if isinstance(o, decimal.Decimal):
            if o.is_nan():
                return math.nan
            self.raw.append(str(o))
            return _RAW_MARK + str(len(self.raw) - 1)
        if isinstance(o, bytes):
            return o.decode("utf-8")
        return super().default(o)


def to_json(value):
    encoder = _Encoder()
    text = encoder.encode(value)
    for index, digits in enumerate(encoder.raw):
        text = text.replace(encoder.encode(_RAW_MARK + str(index)), digits, 1)
    return text


# --- Errors (lambda_runtime_exception.py, bootstrap.py) --------------------------------------------------------------
class FaultException(Exception):
    """An error of the runtime's own, reported with its Runtime.* type."""

    def __init__(self, error_type, message, trace=None):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace


def error_body(message, error_type, stack_trace, request_id=None):
    """The body awslambdaric posts for an error (bootstrap.py's make_error): every field always there."""
    return {
        "errorMessage": message or "",
        "errorType": error_type or "",
        "requestId": request_id if request_id is not None else "",
        "stackTrace": stack_trace or [],
    }


def user_frames(tb):
    """The traceback from the first frame that is not the runtime's own (awslambdaric skips bootstrap.py's)."""
    frames = [(frame.filename, frame.lineno, frame.name, frame.line) for frame in traceback.extract_tb(tb)]
    for index, frame in enumerate(frames):
        if frame[0] != RUNTIME_FILE:
            return frames[index:]
    return frames


def exception_body(error, request_id=None):
    frames = user_frames(error.__traceback__)
    return error_body(str(error), type(error).__name__, traceback.format_list(frames), request_id), frames


def xray_cause(error_type, message, frames):
    """The X-Ray error cause awslambdaric sends with an invocation's error (bootstrap.py's make_xray_fault)."""
    stack = [{"label": name, "path": path, "line": line} for path, line, name, _ in frames]
    return {
        "working_directory": os.getcwd(),
        "exceptions": [{"message": message, "type": error_type, "stack": stack}],
        "paths": list({path for path, _, _, _ in frames}),
    }


LOG_FORMAT_JSON = (os.environ.get("AWS_LAMBDA_LOG_FORMAT") or "").upper() == "JSON"
_NBSP = "\u00a0"


def log_error(body):
    """
    An error as awslambdaric logs it (bootstrap.py's log_error, written by its StandardLogSink): in Text, `[ERROR] Type:
    message`, then `Traceback (most recent call last):` and the trace, its lines' leading spaces as no-break spaces,
    all joined by carriage returns into one line of output; in JSON, the error body with a timestamp and log_level.
    """
    if LOG_FORMAT_JSON:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        sys.stdout.write(to_json({"timestamp": stamp, "log_level": "ERROR", **body}) + "\n")
        return
    head = "[ERROR]"
    if body["errorType"]:
        head += " " + body["errorType"]
    if body["errorMessage"]:
        head += (":" if body["errorType"] else "") + " " + body["errorMessage"]
    lines = [head, "Traceback (most recent call last):"]
    for element in body["stackTrace"]:
        if element == "":
            lines.append("")
            continue
        for line in element.splitlines():
            stripped = line.lstrip(" ")
            lines.append(_NBSP * (len(line) - len(stripped)) + stripped)
    sys.stdout.write("\r".join(lines) + "\n")


# The warning awslambdaric logs before a failed initialization's error (lambda_literals.py).
UNHANDLED_WARNING = (
    "LAMBDA_WARNING: Unhandled exception. The most likely cause is an issue in the function code. However, in rare "
    "cases, a Lambda runtime update can cause unexpected function behavior. For functions using managed runtimes, "
    "runtime updates can be triggered by a function change, or can be applied automatically. To determine if the "
    "runtime has been updated, check the runtime version in the INIT_START log entry. If this error correlates with a "
    "change in the runtime version, you may be able to mitigate this error by temporarily rolling back to the "
    "previous runtime version. For more information, see "
    "https://docs.aws.amazon.com/lambda/latest/dg/runtimes-update.html\r"
)


# --- Logging (bootstrap.py's run and _setup_logging, lambda_runtime_log_utils.py) ------------------------------------
class Unbuffered:
    """stdout and stderr flushed on every write, so that each line reaches the log as it is written."""

    def __init__(self, stream):
        self.stream = stream

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def write(self, text):
        written = self.stream.write(text)
        self.stream.flush()
        return written

    def writelines(self, lines):
        self.stream.writelines(lines)
        self.stream.flush()


current_request_id = None
current_tenant_id = None


class RequestFilter(logging.Filter):
    """Every record gets the current invocation's request id (and tenant id), for the formats to show."""

    def filter(self, record):
        record.aws_request_id = current_request_id or ""
        record.tenant_id = current_tenant_id
        return True


class StdoutHandler(logging.Handler):
    def emit(self, record):
        try:
            sys.stdout.write(self.format(record))
        except Exception:
            self.handleError(record)


# The record's own attributes, which the JSON format does not copy as extra fields.
_RECORD_FIELDS = {
    "name", "msg", "args", "levelname", "levelno", "pathname", "filename", "module", "exc_info", "exc_text",
    "stack_info", "lineno", "funcName", "created", "msecs", "relativeCreated", "thread", "threadName", "processName",
    "process", "aws_request_id", "tenant_id", "_frame_type",
}  # fmt: skip


class JsonFormatter(logging.Formatter):
    """A record as Lambda's JSON log format has it (lambda_runtime_log_utils.py's JsonFormatter)."""

    def __init__(self):
        super().__init__(datefmt="%Y-%m-%dT%H:%M:%SZ")

    def format(self, record):
        record.levelno = min(50, max(0, record.levelno)) // 10 * 10
        record.levelname = logging.getLevelName(record.levelno)
        info = record.exc_info
        fields = {
            "timestamp": self.formatTime(record, self.datefmt),
            "level": record.levelname,
            "message": record.getMessage(),
            "logger": record.name,
            "stackTrace": traceback.format_tb(info[2]) if info else None,
            "errorType": info[0].__name__ if info else None,
            "errorMessage": str(info[1]) if info else None,
            "requestId": getattr(record, "aws_request_id", None),
            "location": "{}:{}:{}".format(record.pathname, record.funcName, record.lineno) if info else None,
        }
        if getattr(record, "tenant_id", None) is not None:
            fields["tenantId"] = record.tenant_id
        for key, value in record.__dict__.items():
            if key not in _RECORD_FIELDS and key not in fields:
                fields[key] = value
        return json.dumps({k: v for k, v in fields.items() if v is not None}, ensure_ascii=False) + "\n"


def setup_logging():
    logging.Formatter.converter = time.gmtime
    handler = StdoutHandler()
    if LOG_FORMAT_JSON:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter(
                "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n", "%Y-%m-%dT%H:%M:%S"
            )
        )
    level = os.environ.get("AWS_LAMBDA_LOG_LEVEL")
    level = {None: "", "TRACE": "DEBUG"}.get(level, level).upper()
    root = logging.getLogger()
    if level in logging._nameToLevel:
        root.setLevel(level)
    handler.addFilter(RequestFilter())
    root.addHandler(handler)


# --- The context (lambda_context.py) ---------------------------------------------------------------------------------
class CognitoIdentity:
    __slots__ = ["cognito_identity_id", "cognito_identity_pool_id"]

    def __repr__(self):
        return "CognitoIdentity([cognito_identity_id={},cognito_identity_pool_id={}])".format(
            self.cognito_identity_id, self.cognito_identity_pool_id
        )


class Client:
    __slots__ = ["installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name"]

    def __repr__(self):
        return "Client([{}])".format(",".join("{}={}".format(n, getattr(self, n)) for n in self.__slots__))


class ClientContext:
    __slots__ = ["custom", "env", "client"]

    def __repr__(self):
        return "ClientContext([custom={},env={},client={}])".format(self.custom, self.env, self.client)


def from_dict(cls, values):
    if values is None:
        return None
    made = cls()
    for name in cls.__slots__:
        setattr(made, name, values.get(name))
    return made


class LambdaContext:
    def __init__(self, request_id, client_context, cognito_identity, deadline_ms, invoked_function_arn, tenant_id):
        self.aws_request_id = request_id
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_function_arn
        self.tenant_id = tenant_id
        self.client_context = from_dict(ClientContext, client_context)
        if self.client_context is not None:
            self.client_context.client = from_dict(Client, self.client_context.client)
        self.identity = from_dict(CognitoIdentity, {})
        if cognito_identity is not None:
            self.identity.cognito_identity_id = cognito_identity.get("cognitoIdentityId")
            self.identity.cognito_identity_pool_id = cognito_identity.get("cognitoIdentityPoolId")
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(self._deadline_ms - int(time.time() * 1000), 0)

    def log(self, message):
        sys.stdout.write(str(message))

    def __repr__(self):
        fields = [
            "aws_request_id", "log_group_name", "log_stream_name", "function_name", "memory_limit_in_mb",
            "function_version", "invoked_function_arn", "client_context", "identity", "tenant_id",
        ]  # fmt: skip
        return "LambdaContext([{}])".format(",".join("{}={}".format(n, getattr(self, n)) for n in fields))


# --- The Runtime API (lambda_runtime_client.py) -----------------------------------------------------------------------
class RuntimeApi:
    """
    Lambda's Runtime API over one kept-alive connection, one call at a time. The connection refused or closed means
    the runner is gone (even by SIGKILL): the environment ends quietly, never outliving the runner that started it.
    """

    def __init__(self, address):
        self.connection = http.client.HTTPConnection(address)

    def call(self, method, path, expected, body=None, headers=None):
        try:
            self.connection.request(method, "/2018-06-01/runtime" + path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            sys.stdout.flush()
            os._exit(0)
        if response.status != expected:
            # As awslambdaric's client: an answer it did not expect ends the runtime (LambdaRuntimeClientError).
            raise RuntimeError(
                "Request to Lambda Runtime '{}' endpoint failed. Reason: '{}'. Response body: '{}'".format(
                    path, response.status, data
                )
            )
        return response, data

    def next(self):
        return self.call("GET", "/invocation/next", 200)

    def post_result(self, request_id, body, content_type):
        self.call("POST", "/invocation/{}/response".format(request_id), 202, body, {"Content-Type": content_type})

    def post_error(self, request_id, body, cause):
        headers = {"Content-Type": "application/json"}
        cause = cause.encode("utf-8")
        # As awslambdaric: the X-Ray cause only while under 1 MiB.
        if len(cause) < 1024 * 1024:
            headers["Lambda-Runtime-Function-XRay-Error-Cause"] = cause
        self.call("POST", "/invocation/{}/error".format(request_id), 202, to_json(body).encode("utf-8"), headers)

    def post_init_error(self, body):
        headers = {"Lambda-Runtime-Function-Error-Type": body["errorType"].encode("utf-8")}
        self.call("POST", "/init/error", 202, to_json(body).encode("utf-8"), headers)


# --- What the function can import ------------------------------------------------------------------------------------
# The AWS SDK for Python that Lambda's Python runtimes provide: "The Lambda Python runtimes include the AWS SDK for
# Python (Boto3) and its dependencies" (the Lambda guide, "Working with .zip file archives for Python Lambda
# functions", Runtime dependencies). Its dependencies, by the packages' own requirements: boto3 needs botocore,
# jmespath and s3transfer; botocore needs jmespath, python-dateutil (imported as dateutil) and urllib3; python-dateutil
# needs six. (The runtime's own client, awslambdaric, and its simplejson are importable there too, but undocumented.)
RUNTIME_PROVIDED = {"boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six", "urllib3"}


def _real(path):
    return os.path.realpath(path) if path else None


def _within(path, roots):
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


class LambdaImportScope:
    """
    On Lambda, a function imports from its code (/var/task), its layers (/opt/python and
    /opt/python/lib/pythonX.Y/site-packages), the standard library and the runtime's SDK, and nothing else: locally
    the python3 that runs it would also find whatever its own site-packages (or the user's) has, and a function that
    works here would fail there. So this finder, first on sys.meta_path, looks up each top-level import with the
    finders after it, and refuses (ModuleNotFoundError) one that resolves outside the task root and PYTHONPATH's folders
    (the runner's: the layers) and outside the standard library (less its site-packages, which may lie within it). The
    SDK is taken from wherever the machine has it; when it has none, the error says how to provide it. Submodules
    follow their package; modules imported before this runs (by .pth files at startup) are not looked up again.
    """

    def __init__(self, task_root):
        layers = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        self.own = [r for r in map(_real, [task_root] + layers) if r]
        paths = sysconfig.get_paths()
        stdlib = [paths.get("stdlib"), paths.get("platstdlib"), os.path.dirname(os.__file__)]
        self.stdlib = [r for r in map(_real, stdlib) if r]
        sites = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]
        sites += [paths.get("purelib"), paths.get("platlib")]
        self.sites = [r for r in map(_real, sites) if r]
        self.resolving = set()

    def find_spec(self, fullname, path=None, target=None):
        if path is not None or "." in fullname or fullname in self.resolving:
            return None
        self.resolving.add(fullname)
        try:
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is not self and find is not None:
                    spec = find(fullname, None, target)
                    if spec is not None:
                        break
        finally:
            self.resolving.discard(fullname)
        if fullname in RUNTIME_PROVIDED:
            if spec is None:
                raise ModuleNotFoundError(
                    "No module named '{0}': {0} is part of the AWS SDK for Python (boto3 and its dependencies) that "
                    "Lambda's Python runtime provides, so the function's code need not include it; locally it comes "
                    "from the function's code or layers, the python3 the runner starts, or the runner's cache "
                    "(installed at start, said in the runner's log): install it for that python3 ({1} -m pip install "
                    "boto3), or add it to the function's code or a layer".format(fullname, sys.executable),
                    name=fullname,
                )
            return spec
        if spec is None:
            return None
        location = self.location(spec)
        if location is None or self.allowed(location):
            return spec
        raise ModuleNotFoundError(
            "No module named '{}': it was found locally at {}, but it is not in the function's code or layers; on "
            "Lambda only those, the standard library and the runtime's boto3 can be imported, so this import would "
            "fail on Lambda: add the package to the function's code or to a layer".format(fullname, location),
            name=fullname,
        )

    @staticmethod
    def location(spec):
        """Where the module lies: its file, or its package's folder; none for a built-in or frozen module."""
        if spec.submodule_search_locations is not None:
            if spec.origin and spec.has_location:
                return os.path.dirname(spec.origin)
            locations = list(spec.submodule_search_locations)
            return locations[0] if locations else None
        return spec.origin if spec.has_location else None

    def allowed(self, location):
        where = _real(location)
        if _within(where, self.own):
            return True
        return _within(where, self.stdlib) and not _within(where, self.sites)


# --- The handler (bootstrap.py's _get_handler) -----------------------------------------------------------------------
def load_handler(handler):
    try:
        module_name, function_name = handler.rsplit(".", 1)
    except ValueError as error:
        raise FaultException("Runtime.MalformedHandlerName", "Bad handler '{}': {}".format(handler, error))
    try:
        if module_name.split(".")[0] in sys.builtin_module_names:
            raise FaultException(
                "Runtime.BuiltInModuleConflict", "Cannot use built-in module {} as a handler module".format(module_name)
            )
        module = importlib.import_module(module_name.replace("/", "."))
    except ImportError as error:
        raise FaultException(
            "Runtime.ImportModuleError", "Unable to import module '{}': {}".format(module_name, error)
        )
    except SyntaxError as error:
        trace = ['  File "%s" Line %s\n    %s' % (error.filename, error.lineno, error.text)]
        raise FaultException(
            "Runtime.UserCodeSyntaxError", "Syntax error in module '{}': {}".format(module_name, error), trace
        )
    try:
        return getattr(module, function_name)
    except AttributeError:
        raise FaultException(
            "Runtime.HandlerNotFound", "Handler '{}' missing on module '{}'".format(function_name, module_name)
        )


# --- One invocation (bootstrap.py's handle_event_request) ------------------------------------------------------------
def parse_header_json(value, name):
    try:
        return json.loads(value)
    except Exception as error:
        raise FaultException("Runtime.LambdaContextUnmarshalError", "Unable to parse {} JSON: {}".format(name, error))


def invoke(api, handler, headers, event_body):
    request_id = headers.get("Lambda-Runtime-Aws-Request-Id")
    try:
        client_context = headers.get("Lambda-Runtime-Client-Context")
        identity = headers.get("Lambda-Runtime-Cognito-Identity")
        context = LambdaContext(
            request_id,
            parse_header_json(client_context, "Client Context") if client_context else None,
            parse_header_json(identity, "Cognito Identity") if identity else None,
            int(headers.get("Lambda-Runtime-Deadline-Ms") or 0),
            headers.get("Lambda-Runtime-Invoked-Function-Arn"),
            headers.get("Lambda-Runtime-Aws-Tenant-Id") or None,
        )
        if (headers.get("Content-Type") or None) != "application/json":
            event = event_body
        else:
            try:
                event = json.loads(event_body)
            except Exception as error:
                raise FaultException("Runtime.UnmarshalError", "Unable to unmarshal input: {}".format(error))
        result = handler(event, context)
        if isinstance(result, bytes):
            payload, content_type = result, "application/unknown"
        else:
            try:
                payload, content_type = to_json(result).encode("utf-8"), "application/json"
            except Exception as error:
                raise FaultException("Runtime.MarshalError", "Unable to marshal response: {}".format(error))
    except FaultException as fault:
        body = error_body(fault.message, fault.error_type, fault.trace, request_id)
        cause = xray_cause("LambdaValidationError", fault.message, [])
    except Exception as error:
        body, frames = exception_body(error, request_id)
        cause = xray_cause(type(error).__name__, str(error), frames)
    else:
        api.post_result(request_id, payload, content_type)
        return
    log_error(body)
    api.post_error(request_id, body, to_json(cause))


# The @connections endpoints of the WebSocket APIs the runner serves (bootstrap.ts passes them as this script's
# argument, JSON): each API's execute-api host name, lower case, to its loopback address. runtime.mjs does the same for
# Node.js functions.
EXECUTE_API = json.loads(sys.argv[1]).get("executeApi", {}) if len(sys.argv) > 1 else {}
_execute_api_routed = False


def route_execute_api():
    """Once botocore's HTTP session is loaded (by the handler's module, or later by the handler itself), a request it
    sends to `{api-id}.execute-api.{region}.amazonaws.com` (the event's domainName, CDK's callbackUrl) goes over plain
    HTTP to that API's loopback address instead, its Host header dropped so that urllib3 names the address: on Lambda,
    that name is the API's. Nothing is imported for it."""
    global _execute_api_routed
    if _execute_api_routed or not EXECUTE_API:
        return
    httpsession = sys.modules.get("botocore.httpsession")
    if httpsession is None:
        return
    send = httpsession.URLLib3Session.send

    def send_to_runner(self, request):
        parts = urllib.parse.urlsplit(request.url)
        target = EXECUTE_API.get((parts.hostname or "").lower())
        if target is not None:
            request.url = urllib.parse.urlunsplit(urllib.parse.urlsplit(target)[:2] + parts[2:])
            for name in [name for name in request.headers.keys() if name.lower() == "host"]:
                del request.headers[name]
        return send(self, request)

    httpsession.URLLib3Session.send = send_to_runner
    _execute_api_routed = True


def main():
    global current_request_id, current_tenant_id
    address = os.environ.get("AWS_LAMBDA_RUNTIME_API")
    if not address:
        sys.exit("runtime.py is a Lambda runtime: AWS_LAMBDA_RUNTIME_API names its Runtime API")
    sys.stdout = Unbuffered(sys.stdout)
    sys.stderr = Unbuffered(sys.stderr)
    api = RuntimeApi(address)

    # sys.path as Lambda's /var/runtime/bootstrap.py sets it (aws-lambda-base-images, Python branches): the task root
    # first, and a site directory (its .pth files read). The layers come from PYTHONPATH, which the runner sets. This
    # script's own folder, which Python puts first, is no folder of the function's.
    task_root = os.environ.get("LAMBDA_TASK_ROOT") or os.getcwd()
    if sys.path and _real(sys.path[0] or ".") == os.path.dirname(_real(RUNTIME_FILE)):
        sys.path.pop(0)
    sys.path.insert(0, task_root)
    site.addsitedir(task_root)
    sys.meta_path.insert(0, LambdaImportScope(task_root))

    # The initialization, as bootstrap.py's run: a failure is logged after a warning, posted, and ends the runtime.
    body = None
    try:
        setup_logging()
        handler = load_handler(os.environ.get("_HANDLER", ""))
    except FaultException as fault:
        body = error_body(fault.message, fault.error_type, fault.trace)
    except Exception as error:
        body = exception_body(error)[0]
    if body is not None:
        logging.warning(UNHANDLED_WARNING)
        log_error(body)
        api.post_init_error(body)
        sys.exit(1)

    while True:
        response, event_body = api.next()
        headers = response.headers
        current_request_id = headers.get("Lambda-Runtime-Aws-Request-Id")
        current_tenant_id = headers.get("Lambda-Runtime-Aws-Tenant-Id") or None
        trace_id = headers.get("Lambda-Runtime-Trace-Id")
        if trace_id:
            os.environ["_X_AMZN_TRACE_ID"] = trace_id
        else:
            os.environ.pop("_X_AMZN_TRACE_ID", None)
        route_execute_api()
        invoke(api, handler, headers, event_body)


if __name__ == "__main__":
    main()
