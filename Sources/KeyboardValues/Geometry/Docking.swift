/// Pure rules about where a keyboard sits on its output: docked edges and off-screen frames.
extension Rect {
    /// The edge of `output` this frame is docked to: it touches that edge and spans the output's
    /// full width (top or bottom) or full height (left or right). Nil when it floats.
    ///
    /// Bottom wins over top, and left over right, for a frame that would fit both (it fills the output).
    public func dockedEdge(in output: Rect) -> Edge? {
        let spansWidth = x <= output.x && maxX >= output.maxX
        let spansHeight = y <= output.y && maxY >= output.maxY
        if spansWidth && maxY == output.maxY { return .bottom }
        if spansWidth && y == output.y { return .top }
        if spansHeight && x == output.x { return .left }
        if spansHeight && maxX == output.maxX { return .right }
        return nil
    }

    /// The edge of `output` this frame touches or reaches past, checked in the order bottom, top,
    /// left, right; nil when it touches none.
    public func touchedEdge(of output: Rect) -> Edge? {
        if maxY >= output.maxY { return .bottom }
        if y <= output.y { return .top }
        if x <= output.x { return .left }
        if maxX >= output.maxX { return .right }
        return nil
    }

    /// The frame moved just past `edge` of `output`, keeping its size: where a keyboard that
    /// slides in or out through that edge is when it is not on screen (the iOS convention).
    public func movedOffScreen(through edge: Edge, of output: Rect) -> Rect {
        switch edge {
        case .bottom: Rect(x: x, y: output.maxY, width: width, height: height)
        case .top: Rect(x: x, y: output.y - height, width: width, height: height)
        case .left: Rect(x: output.x - width, y: y, width: width, height: height)
        case .right: Rect(x: output.maxX, y: y, width: width, height: height)
        }
    }

    /// The frame moved along the axis of `edge` until it lies flush against that edge of `output`,
    /// inside it, keeping its size: where a keyboard sliding in through that edge comes to rest.
    public func movedFlush(against edge: Edge, of output: Rect) -> Rect {
        switch edge {
        case .bottom: Rect(x: x, y: output.maxY - height, width: width, height: height)
        case .top: Rect(x: x, y: output.y, width: width, height: height)
        case .left: Rect(x: output.x, y: y, width: width, height: height)
        case .right: Rect(x: output.maxX - width, y: y, width: width, height: height)
        }
    }

    /// True when this frame reaches past `edge` of `output` (part of it is off-screen there).
    public func extendsPast(_ edge: Edge, of output: Rect) -> Bool {
        switch edge {
        case .bottom: maxY > output.maxY
        case .top: y < output.y
        case .left: x < output.x
        case .right: maxX > output.maxX
        }
    }
}
