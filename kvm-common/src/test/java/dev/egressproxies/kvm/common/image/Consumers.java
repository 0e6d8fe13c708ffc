package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.ImageContent;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageConsumer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/** Image consumers for the tests, standing in for a volume upload. */
final class Consumers {
    private Consumers() {
    }

    /** Keeps what it reads, to the end of the stream. */
    static final class Collecting implements ImageConsumer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private volatile ImageContent content;

        @Override
        public void accept(ImageContent content) throws java.io.IOException {
            this.content = content;
            content.stream().transferTo(bytes);
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }

        /** The content handed over; null when the consumer never ran. */
        ImageContent content() {
            return content;
        }
    }

    /**
     * Reads as a libvirt upload of a known length does: exactly that many bytes, in chunks, without
     * asking for the end; to the end when the length is unknown. Counts what it received.
     */
    static final class UploadLike implements ImageConsumer {
        private final AtomicLong received = new AtomicLong();

        @Override
        public void accept(ImageContent content) throws java.io.IOException {
            InputStream stream = content.stream();
            byte[] chunk = new byte[1 << 20];
            long left = content.length().orElse(Long.MAX_VALUE);
            while (left > 0) {
                int read = stream.readNBytes(chunk, 0, (int) Math.min(chunk.length, left));
                if (read == 0) {
                    break;
                }
                received.addAndGet(read);
                left -= read;
            }
        }

        long received() {
            return received.get();
        }
    }
}
