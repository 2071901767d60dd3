/// CalculatorEngine module; see ../../../shared/STYLE.md for its role.
public enum CalculatorEngineModule {}
