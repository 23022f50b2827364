// KeyboardAdapter's GNOME Shell extension for GNOME Shell 43 and 44, whose extensions are scripts
// loaded through imports. The installed extension.js is this text followed by keyboard-export.js.
/* exported init */
const {Gio, GLib, Shell} = imports.gi;
const Main = imports.ui.main;
const Config = imports.misc.config;
const ExtensionUtils = imports.misc.extensionUtils;

class KeyboardAdapterExtension {
    enable() {
        this._export = new KeyboardExport(ExtensionUtils.getCurrentExtension().path);
    }

    disable() {
        this._export?.destroy();
        this._export = null;
    }
}

function init() {
    return new KeyboardAdapterExtension();
}
