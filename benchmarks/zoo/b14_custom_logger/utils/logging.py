import functools
import logging


class ProjectLogger(logging.Logger):
    @functools.lru_cache(None)
    def warning_once(self, message: str) -> None:
        self.warning(message)


def get_logger(name: str) -> ProjectLogger:
    logging.setLoggerClass(ProjectLogger)
    logger = logging.getLogger(name)
    logging.setLoggerClass(logging.Logger)
    return logger  # type: ignore[return-value]
