// Run by Qt's qml tool with the module on its import path (QtModuleTests): a full-screen window
// that prints the KeyboardAdapter singleton's values each time they change.
import QtQuick
import KeyboardAdapter

Window {
    id: root
    color: "#f4f6fa"
    // Full screen: the window's coordinates are the screen's.
    Component.onCompleted: showFullScreen()

    // Once per change of what it prints.
    property string reported: ""
    function report() {
        const r = KeyboardAdapter.keyboardRectangle
        const line = "keyboardRectangle " + r.x + "," + r.y + " " + r.width + "x" + r.height
            + " visible " + KeyboardAdapter.visible + " window " + root.width + "x" + root.height
        if (line !== reported) {
            reported = line
            console.log(line)
        }
    }

    Connections {
        target: KeyboardAdapter
        function onSubscribed() { console.log("subscribed") }
        function onServiceGone() { console.log("service gone") }
        function onFailed(message) { console.log("failed " + message) }
        function onKeyboardEvent(event, name, endFrame, local) {
            console.log(event + " " + name + " local " + local)
        }
        function onKeyboardRectangleChanged() { root.report() }
        function onVisibleChanged() { root.report() }
    }
    onWidthChanged: report()
    onHeightChanged: report()
}
