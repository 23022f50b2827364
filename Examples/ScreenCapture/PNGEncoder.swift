import CZlib
import Foundation

/// Writes an ``RGBImage`` as a PNG file: 8-bit RGB, no interlacing, each row filtered with the
/// "Sub" filter (flat interface colours become runs of zeros) and compressed with zlib.
public enum PNGEncoder {
    /// A failure to compress or to write.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The PNG file's bytes.
    public static func encode(_ image: RGBImage) throws -> Data {
        var header = Data()
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header.append(contentsOf: [8, 2, 0, 0, 0])

        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", try compress(filteredRows(of: image)), to: &png)
        appendChunk("IEND", Data(), to: &png)
        return png
    }

    /// Encodes and writes to `path`, replacing any file there.
    public static func write(_ image: RGBImage, to path: String) throws {
        try encode(image).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Each row starts with its filter type; Sub stores each byte minus the byte one pixel left.
    private static func filteredRows(of image: RGBImage) -> [UInt8] {
        let stride = image.width * 3
        var out = [UInt8](repeating: 0, count: image.height * (stride + 1))
        image.bytes.withUnsafeBufferPointer { src in
            for row in 0..<image.height {
                let base = row * stride
                let dst = row * (stride + 1)
                out[dst] = 1
                for i in 0..<stride {
                    let left: UInt8 = i >= 3 ? src[base + i - 3] : 0
                    out[dst + 1 + i] = src[base + i] &- left
                }
            }
        }
        return out
    }

    private static func compress(_ raw: [UInt8]) throws -> Data {
        var size = compressBound(uLong(raw.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = compress2(&out, &size, raw, uLong(raw.count), 6)
        guard status == Z_OK else { throw Failure(description: "zlib compress2 failed with status \(status)") }
        return Data(out[0..<Int(size)])
    }

    private static func appendChunk(_ type: String, _ body: Data, to png: inout Data) {
        let typeBytes = Data(type.utf8)
        png.appendBigEndian(UInt32(body.count))
        var crc = typeBytes.withUnsafeBytes { crc32(0, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)) }
        crc = body.withUnsafeBytes { crc32(crc, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)) }
        png.append(typeBytes)
        png.append(body)
        png.appendBigEndian(UInt32(crc))
    }
}

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
        ])
    }
}
