/// DrawEngine module; see ../../../shared/STYLE.md for its role.
public enum DrawEngineModule {}
