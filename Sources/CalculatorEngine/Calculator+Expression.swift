/// The pending expression: operators, parentheses, `=` and the history tape.
extension Calculator {
    mutating func startNewCalculation() {
        finishedExpression = nil
        tokens = []
        lastReduction = nil
    }

    mutating func binary(_ op: BinaryOperator) throws(CalculatorError) {
        if finishedExpression != nil { startNewCalculation() }
        if !operandEntered, case .binary = pending.last {
            pending[pending.count - 1] = .binary(op)
            tokens[tokens.count - 1] = op.symbol
            return
        }
        try pushOperand()
        let mode = mode
        try reduce { top in
            mode == .basic || top.precedence > op.precedence
                || (top.precedence == op.precedence && !op.isRightAssociative)
        }
        pending.append(.binary(op))
        tokens.append(op.symbol)
        current = values[values.count - 1]
        operandEntered = false
        operandIsGroup = false
    }

    /// Pushes the operand; right after `(` with nothing entered that operand is 0
    /// (`1 + ( + 3 )` is 1 + (0 + 3)), as in Windows Calculator.
    mutating func pushOperand() throws(CalculatorError) {
        var value: CalcNumber
        if !operandEntered, case .group = pending.last {
            value = .zero
            operandText = nil
        } else {
            value = try commitOperand()
        }
        tokens.append(operandText ?? DecimalFormatter.string(for: value))
        operandText = nil
        values.append(value)
    }

    /// Applies pending binary operators from the top while `condition` holds, stopping at `(`.
    mutating func reduce(while condition: (BinaryOperator) -> Bool) throws(CalculatorError) {
        while case .binary(let op) = pending.last, condition(op) {
            pending.removeLast()
            let rhs = values.removeLast()
            let lhs = values.removeLast()
            values.append(try op.apply(lhs, rhs))
            lastReduction = (op, rhs)
        }
    }

    /// `(`; after an operand (`2 (`, `( 7 ) (`) it first multiplies, as in Windows Calculator.
    mutating func openGroup() throws(CalculatorError) {
        guard groupStarts.count < Self.parenthesisLimit else { return }
        if finishedExpression != nil {
            startNewCalculation()
        } else if operandEntered {
            try binary(.multiply)
        }
        entry = nil
        operandText = nil
        operandEntered = false
        operandIsGroup = false
        groupStarts.append(tokens.count)
        tokens.append("(")
        pending.append(.group)
    }

    mutating func closeGroup() throws(CalculatorError) {
        guard let start = groupStarts.last else { return }
        try pushOperand()
        try reduce { _ in true }
        pending.removeLast()
        groupStarts.removeLast()
        let text = (tokens[start...] + [")"]).joined(separator: " ")
        tokens.removeSubrange(start...)
        current = values.removeLast()
        operandText = text
        operandEntered = true
        operandIsGroup = true
    }

    mutating func equals() throws(CalculatorError) {
        let nothingPending = pending.isEmpty && tokens.isEmpty && lastReduction == nil
        if finishedExpression != nil || nothingPending {
            let lhs = try commitOperand()
            let text = operandText ?? DecimalFormatter.string(for: lhs)
            if let (op, rhs) = repeatOperation {
                current = try op.apply(lhs, rhs)
                finish(text + " " + op.symbol + " " + DecimalFormatter.string(for: rhs) + " =")
            } else if operandText != nil {
                finish(text + " =")
            } else {
                startNewCalculation()
                finishedExpression = text + " ="
            }
            return
        }
        if !pending.isEmpty {
            try pushOperand()
            while let top = pending.last {
                switch top {
                case .group:
                    pending.removeLast()
                    groupStarts.removeLast()
                    tokens.append(")")
                case .binary:
                    try reduce { _ in true }
                }
            }
            current = values.removeLast()
        } else {
            current = try commitOperand()
            if let text = operandText { tokens.append(text) }
        }
        repeatOperation = lastReduction
        finish(tokens.joined(separator: " ") + " =")
    }

    /// Shows `current` as the result of `expression` and writes it to the history tape.
    mutating func finish(_ expression: String) {
        entry = nil
        values = []
        pending = []
        tokens = []
        groupStarts = []
        lastReduction = nil
        operandText = nil
        operandEntered = true
        operandIsGroup = false
        finishedExpression = expression
        history.append((CalculatorHistoryEntry(expression: expression, result: DecimalFormatter.string(for: current)), current))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }
}
