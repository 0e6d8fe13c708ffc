package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import dev.egressproxies.kvm.common.image.ImageFetcher.FetchResult;
import dev.egressproxies.kvm.common.image.ImageFetcher.ImageConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Compressed images and tar archives, made in the test with Commons Compress's writers, fetched back. */
class CompressedImageTest {
    private static final byte[] DISK = TestImages.disk(2 * 1024 * 1024 + 333, 3);
    private static final byte[] README = "This archive holds a raw disk image.\n".getBytes();
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    private final ImageTestServer server = new ImageTestServer();
    private final ImageFetcher fetcher = new ImageFetcher(TestImages::followingClient, ProgressReporter.SILENT,
            TransferBudget.of(GENEROUS));

    CompressedImageTest() throws IOException {
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Nested
    class Compressed {
        @ParameterizedTest
        @EnumSource(value = Compression.class, names = {"XZ", "GZIP", "BZIP2", "ZSTD"})
        void aCompressedImageArrivesDecompressedWithTheDigestOfThePublishedFile(Compression compression) {
            byte[] published = TestImages.compress(compression, DISK);
            String path = "/disk.qcow2" + compression.fileSuffix();
            server.serve(path, published);
            Consumers.Collecting consumer = new Consumers.Collecting();

            FetchResult result = fetcher.fetch(source(path).sha256(TestImages.sha256(published)).build(), "test",
                    Deadline.after(GENEROUS), consumer);

            assertThat(consumer.bytes()).isEqualTo(DISK);
            assertThat(consumer.content().length()).isEqualTo(OptionalLong.empty());
            assertThat(result).isEqualTo(new FetchResult(published.length, TestImages.sha256(published), DISK.length));
        }

        @ParameterizedTest
        @EnumSource(value = Compression.class, names = {"XZ", "GZIP", "BZIP2", "ZSTD"})
        void aDigestPinnedToTheDecompressedBytesIsAMismatch(Compression compression) {
            server.serve("/disk.img" + compression.fileSuffix(), TestImages.compress(compression, DISK));
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(source("/disk.img" + compression.fileSuffix())
                    .sha256(TestImages.sha256(DISK)).build(), consumer);

            assertThat(failure.reason()).isEqualTo(Reason.DIGEST_MISMATCH);
            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        }

        @Test
        void concatenatedGzipMembersAreOneImage() {
            byte[] first = TestImages.compress(Compression.GZIP, Arrays.copyOfRange(DISK, 0, 1_000_000));
            byte[] second = TestImages.compress(Compression.GZIP, Arrays.copyOfRange(DISK, 1_000_000, DISK.length));
            ByteArrayOutputStream published = new ByteArrayOutputStream();
            published.writeBytes(first);
            published.writeBytes(second);
            server.serve("/disk.img.gz", published.toByteArray());
            Consumers.Collecting consumer = new Consumers.Collecting();

            fetcher.fetch(source("/disk.img.gz").build(), "test", Deadline.after(GENEROUS), consumer);

            assertThat(consumer.bytes()).isEqualTo(DISK);
        }

        @Test
        void bytesThatAreNotTheDeclaredCompressionArePermanent() {
            server.serve("/disk.qcow2.xz", DISK);

            ImageFetchException failure = fetchFailure(source("/disk.qcow2.xz").build(), new Consumers.UploadLike());

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.reason()).isEqualTo(Reason.CONTENT_INVALID);
            assertThat(failure).hasMessageContaining("is not an xz-compressed file as declared")
                    .hasMessageContaining("check the compression and archive declared");
        }

        @Test
        void corruptionInsideTheStreamIsPermanent() {
            byte[] published = TestImages.compress(Compression.XZ, DISK);
            published[published.length / 2] ^= 0x55;
            server.serve("/disk.qcow2.xz", published);
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(source("/disk.qcow2.xz").build(), consumer);

            assertThat(failure.reason()).isEqualTo(Reason.CONTENT_INVALID);
            assertThat(consumer.received()).isLessThan(DISK.length);
        }

        @Test
        void aCompressedBodyCutOffIsTheTransientShortReadNotACorruptFile() {
            byte[] published = TestImages.compress(Compression.XZ, DISK);
            server.serveCutOff("/disk.qcow2.xz", published, published.length / 2);

            ImageFetchException failure = fetchFailure(source("/disk.qcow2.xz").build(), new Consumers.UploadLike());

            assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failure.reason()).isEqualTo(Reason.BODY_BROKEN);
            assertThat(failure).hasMessageContaining("the server sent " + published.length / 2 + " of "
                    + published.length + " bytes");
        }

        @Test
        void bytesAfterTheCompressedStreamArePermanent() {
            ByteArrayOutputStream published = new ByteArrayOutputStream();
            published.writeBytes(TestImages.compress(Compression.GZIP, DISK));
            published.writeBytes("trailing garbage".getBytes());
            server.serve("/disk.img.gz", published.toByteArray());
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(source("/disk.img.gz").build(), consumer);

            assertThat(failure.reason()).isEqualTo(Reason.CONTENT_INVALID);
        }
    }

    @Nested
    class Archives {
        @Test
        void theNamedMemberOfATarXzIsStreamedWithItsLength() {
            byte[] published = TestImages.compress(Compression.XZ,
                    TestImages.tar(TestImages.files("README", README, "disk.raw", DISK, "checksums.txt", README)));
            server.serve("/image.tar.xz", published);
            Consumers.Collecting consumer = new Consumers.Collecting();

            FetchResult result = fetcher.fetch(source("/image.tar.xz").archiveMember("disk.raw")
                    .sha256(TestImages.sha256(published)).build(), "test", Deadline.after(GENEROUS), consumer);

            assertThat(consumer.bytes()).isEqualTo(DISK);
            assertThat(consumer.content().length()).isEqualTo(OptionalLong.of(DISK.length));
            assertThat(result).isEqualTo(new FetchResult(published.length, TestImages.sha256(published), DISK.length));
        }

        @Test
        void anUploadOfTheMembersLengthEndsOnlyAfterTheWholeArchiveIsChecked() {
            byte[] published = TestImages.compress(Compression.GZIP,
                    TestImages.tar(TestImages.files("disk.raw", DISK, "README", README)));
            byte[] tampered = published.clone();
            // The gzip trailer's CRC: the member's data is intact, the archive is not.
            tampered[tampered.length - 6] ^= 1;
            server.serve("/image.tgz", tampered);
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(source("/image.tgz").archiveMember("disk.raw")
                    .sha256(TestImages.sha256(published)).build(), consumer);

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(consumer.received()).isLessThan(DISK.length);
        }

        @Test
        void theOnlyRegularFileIsTakenWhenNoneIsNamed() {
            server.serve("/image.tar.gz", TestImages.compress(Compression.GZIP,
                    TestImages.tar(TestImages.files("./disk.raw", DISK))));
            Consumers.Collecting consumer = new Consumers.Collecting();

            fetcher.fetch(source("/image.tar.gz").build(), "test", Deadline.after(GENEROUS), consumer);

            assertThat(consumer.bytes()).isEqualTo(DISK);
        }

        @Test
        void aMemberNameMatchesWithOrWithoutALeadingDotSlash() {
            server.serve("/image.tar", TestImages.tar(TestImages.files("./README", README, "./disk.raw", DISK)));
            Consumers.Collecting consumer = new Consumers.Collecting();

            fetcher.fetch(source("/image.tar").archiveMember("disk.raw").build(), "test", Deadline.after(GENEROUS),
                    consumer);

            assertThat(consumer.bytes()).isEqualTo(DISK);
        }

        @Test
        void severalFilesWithoutANamedMemberArePermanentBeforeTheLastByte() {
            server.serve("/image.tar.zst", TestImages.compress(Compression.ZSTD,
                    TestImages.tar(TestImages.files("disk.raw", DISK, "README", README))));
            Consumers.UploadLike consumer = new Consumers.UploadLike();

            ImageFetchException failure = fetchFailure(source("/image.tar.zst").build(), consumer);

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure).hasMessageContaining("holds more than one file (disk.raw, README)")
                    .hasMessageContaining("name the one that is the disk image");
            assertThat(consumer.received()).isLessThan(DISK.length);
        }

        @Test
        void aMissingMemberIsPermanentAndTheMessageListsWhatIsThere() {
            server.serve("/image.tar.bz2", TestImages.compress(Compression.BZIP2,
                    TestImages.tar(TestImages.files("README", README, "disk.qcow2", DISK))));
            Consumers.Collecting consumer = new Consumers.Collecting();

            ImageFetchException failure = fetchFailure(source("/image.tar.bz2").archiveMember("disk.raw").build(),
                    consumer);

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure).hasMessageContaining("has no regular file named 'disk.raw'")
                    .hasMessageContaining("it holds README, disk.qcow2");
            assertThat(consumer.content()).isNull();
        }

        @Test
        void aFileThatIsNoTarArchiveIsPermanent() {
            server.serve("/image.tar.gz", TestImages.compress(Compression.GZIP, DISK));

            ImageFetchException failure = fetchFailure(source("/image.tar.gz").build(), new Consumers.UploadLike());

            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.reason()).isEqualTo(Reason.CONTENT_INVALID);
        }
    }

    private ImageSource.Builder source(String path) {
        return ImageSource.builder(server.url(path));
    }

    private ImageFetchException fetchFailure(ImageSource source, ImageConsumer consumer) {
        return catchThrowableOfType(ImageFetchException.class,
                () -> fetcher.fetch(source, "test", Deadline.after(GENEROUS), consumer));
    }
}
