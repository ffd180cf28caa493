"""Stand-in for Agent Zero's helpers/notification.py (v1.7, v2.6 and the newest have it):
`NotificationManager.send_notification` records what it was given."""

from enum import Enum

SENT: list = []


class NotificationType(Enum):
    INFO = "info"
    SUCCESS = "success"
    WARNING = "warning"
    ERROR = "error"
    PROGRESS = "progress"


class NotificationPriority(Enum):
    NORMAL = 10
    HIGH = 20


class NotificationManager:
    @staticmethod
    def send_notification(type, priority, message, title="", detail="", display_time=3, group="", id=""):
        SENT.append({"type": NotificationType(type), "priority": NotificationPriority(priority),
                     "message": message, "title": title, "group": group, "id": id})
        return SENT[-1]
