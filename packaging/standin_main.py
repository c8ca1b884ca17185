"""Entry point of the frozen (PyInstaller) app: the same command line as `standin`."""
import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
