/// The pending expression: operators, parentheses, `=` and the history tape.
extension Calculator {
    mutating func startNewCalculation() {
        finishedExpression = nil
        line = ExpressionLine()
        lastReduction = nil
    }

    mutating func binary(_ op: BinaryOperator) throws(CalculatorError) {
        if finishedExpression != nil { startNewCalculation() }
        if !operandEntered, case .binary(let previous) = pending.last {
            pending[pending.count - 1] = .binary(op)
            line.replaceLast(previous.symbol, with: op.symbol)
            return
        }
        try pushOperand()
        let mode = mode
        try reduce { top in
            mode == .basic || top.precedence > op.precedence
                || (top.precedence == op.precedence && !op.isRightAssociative)
        }
        pending.append(.binary(op))
        line.append(op.symbol)
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
        line.append(operandText ?? ExpressionText(DecimalFormatter.string(for: value)))
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
        guard line.depth < Self.parenthesisLimit else { return }
        if finishedExpression != nil {
            startNewCalculation()
        } else if operandEntered {
            try binary(.multiply)
        }
        entry = nil
        operandText = nil
        operandEntered = false
        operandIsGroup = false
        line.openGroup()
        pending.append(.group)
    }

    mutating func closeGroup() throws(CalculatorError) {
        guard line.depth > 0 else { return }
        try pushOperand()
        try reduce { _ in true }
        pending.removeLast()
        let text = line.closeGroup()
        current = values.removeLast()
        operandText = text
        operandEntered = true
        operandIsGroup = true
    }

    mutating func equals() throws(CalculatorError) {
        let nothingPending = pending.isEmpty && line.isEmpty && lastReduction == nil
        if finishedExpression != nil || nothingPending {
            let lhs = try commitOperand()
            let text = operandText ?? ExpressionText(DecimalFormatter.string(for: lhs))
            if let (op, rhs) = repeatOperation {
                current = try op.apply(lhs, rhs)
                finish(text + (" " + op.symbol + " " + DecimalFormatter.string(for: rhs) + " ="))
            } else if operandText != nil {
                finish(text + " =")
            } else {
                startNewCalculation()
                finishedExpression = (text + " =").shown
            }
            return
        }
        if !pending.isEmpty {
            try pushOperand()
            while let top = pending.last {
                switch top {
                case .group:
                    pending.removeLast()
                    line.append(")")
                case .binary:
                    try reduce { _ in true }
                }
            }
            current = values.removeLast()
            repeatOperation = lastReduction
            finish(line.text(followedBy: nil) + " =")
        } else {
            current = try commitOperand()
            repeatOperation = lastReduction
            finish(line.text(followedBy: operandText) + " =")
        }
    }

    /// Shows `current` as the result of `expression` and writes it, as shown, to the history tape.
    mutating func finish(_ text: ExpressionText) {
        let expression = text.shown
        entry = nil
        values = []
        pending = []
        line = ExpressionLine()
        lastReduction = nil
        operandText = nil
        operandEntered = true
        operandIsGroup = false
        finishedExpression = expression
        history.append((CalculatorHistoryEntry(expression: expression, result: DecimalFormatter.string(for: current)), current))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }
}
