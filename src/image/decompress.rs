//! A layer's bytes decompressed by what they are, whatever the media type
//! says: gzip (`1f 8b`), zstd (`28 b5 2f fd`), else a plain tar.

use std::io::{self, BufRead, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// The decompressed stream of `source`, chosen by its first bytes.
pub(super) fn decompressed<'a, R: BufRead + 'a>(mut source: R) -> io::Result<Box<dyn Read + 'a>> {
    let head = source.fill_buf()?;
    Ok(if head.starts_with(GZIP) {
        Box::new(flate2::bufread::MultiGzDecoder::new(source))
    } else if head.starts_with(ZSTD) {
        Box::new(Zstd { source, frame: FrameDecoder::new(), in_frame: false })
    } else {
        Box::new(source)
    })
}

/// A zstd stream of any number of frames, skippable frames skipped.
struct Zstd<R> {
    source: R,
    frame: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                if self.frame.can_collect() > 0 {
                    return self.frame.read(buf);
                }
                if self.frame.is_finished() {
                    self.in_frame = false;
                    continue;
                }
                self.frame
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                    .map_err(io::Error::other)?;
                continue;
            }
            if self.source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            match self.frame.reset(&mut self.source) {
                Ok(()) => self.in_frame = true,
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    let skipped = io::copy(&mut (&mut self.source).take(u64::from(length)), &mut io::sink())?;
                    if skipped != u64::from(length) {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "zstd skippable frame cut short"));
                    }
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zstd_frames_follow_each_other_and_skippable_ones_are_skipped() {
        let mut bytes = ruzstd::encoding::compress_to_vec(&b"hello "[..], ruzstd::encoding::CompressionLevel::Fastest);
        bytes.extend([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
        bytes.extend(ruzstd::encoding::compress_to_vec(&b"world"[..], ruzstd::encoding::CompressionLevel::Fastest));
        let mut out = String::new();
        decompressed(&bytes[..]).unwrap().read_to_string(&mut out).unwrap();
        assert_eq!(out, "hello world");
        let mut plain = String::new();
        decompressed(&b"plain"[..]).unwrap().read_to_string(&mut plain).unwrap();
        assert_eq!(plain, "plain");
    }
}
