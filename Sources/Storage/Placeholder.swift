/// Storage module; see ../../../shared/STYLE.md for its role.
public enum StorageModule {}
