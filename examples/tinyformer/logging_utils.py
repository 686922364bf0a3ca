import functools
import logging


class Logger(logging.Logger):
    """A logger with `warning_once`, like the one model libraries ship."""

    @functools.lru_cache(None)  # noqa: B019 - once per message is the point
    def warning_once(self, message: str) -> None:
        self.warning(message)


def get_logger(name: str) -> Logger:
    logging.setLoggerClass(Logger)
    logger = logging.getLogger(name)
    logging.setLoggerClass(logging.Logger)
    return logger  # type: ignore[return-value]
