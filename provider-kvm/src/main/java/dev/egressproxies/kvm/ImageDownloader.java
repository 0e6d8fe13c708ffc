package dev.egressproxies.kvm;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.instance.Call;
import dev.egressproxies.kvm.config.KvmImage;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The HTTP side of image downloads: opens them and classifies what the server answers before a
 * byte goes to a host. 4xx (and a redirect the client did not follow) is PERMANENT, because the
 * configured URL is wrong; 5xx and 429 are TRANSIENT; a response without a Content-Length, an
 * empty one, or a compressed one is PERMANENT, because the volume's size must be declared before
 * the upload and the bytes must be the image itself.
 */
final class ImageDownloader {
    private final HttpClient client;
    private final String entry;

    ImageDownloader(HttpClient client, String entry) {
        this.client = client;
        this.entry = entry;
    }

    /**
     * Sends the GET for the image and checks the response.
     *
     * @return the checked response; the caller reads and closes it
     * @throws ProviderException classified as above; TRANSIENT when the server cannot be reached
     */
    ImageResponse open(String imageKey, KvmImage image, Call call) {
        HttpResponse<InputStream> response = send(imageKey, image, "GET", call);
        try {
            return new ImageResponse(response.body(), checkedLength(response, imageKey, image, call));
        } catch (RuntimeException rejected) {
            new ImageResponse(response.body(), 0).close();
            throw rejected;
        }
    }

    /**
     * Checks that the image can be downloaded, without downloading it: a HEAD request, and when the
     * server refuses HEAD (many answer 403, 405 or 501 alike), a GET whose body is closed at once.
     *
     * @return the image's length
     * @throws ProviderException classified as for {@link #open}
     */
    long probe(String imageKey, KvmImage image, Call call) {
        HttpResponse<InputStream> head = send(imageKey, image, "HEAD", call);
        new ImageResponse(head.body(), 0).close();
        if (head.statusCode() / 100 == 2) {
            return checkedLength(head, imageKey, image, call);
        }
        try (ImageResponse response = open(imageKey, image, call)) {
            return response.length();
        }
    }

    private HttpResponse<InputStream> send(String imageKey, KvmImage image, String method, Call call) {
        call.checkDeadline();
        HttpRequest.Builder request = HttpRequest.newBuilder(image.uri())
                .method(method, HttpRequest.BodyPublishers.noBody())
                // A transparently compressed body has no usable Content-Length, and would be
                // uploaded compressed; ask for the bytes as they are.
                .header("Accept-Encoding", "identity");
        if (call.deadline().isBounded()) {
            request.timeout(call.deadline().remaining().plusMillis(1));
        }
        String url = UrlText.redacted(image.uri());
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException timeout) {
            if (call.deadline().isExpired()) {
                throw call.deadlineExceeded("waiting for " + url + " to answer", timeout);
            }
            throw call.transientFailure("image '" + imageKey + "': " + url + " did not answer in time (" + timeout
                    + "); retry, and check the server if it repeats", timeout);
        } catch (IOException unreachable) {
            throw call.transientFailure("image '" + imageKey + "' could not be fetched from " + url + ": "
                    + unreachable + "; check that the server is reachable from this machine, then retry", unreachable);
        } catch (InterruptedException interrupted) {
            throw call.interrupted(interrupted);
        }
    }

    private long checkedLength(HttpResponse<?> response, String imageKey, KvmImage image, Call call) {
        String url = UrlText.redacted(image.uri());
        String setting = "images." + imageKey + ".url of provider entry '" + entry + "'";
        int status = response.statusCode();
        if (status == 429 || status >= 500) {
            throw call.failure(ErrorKind.TRANSIENT, "image '" + imageKey + "': " + url + " answered HTTP " + status
                    + "; the server is overloaded or failing, retry later", null);
        }
        if (status >= 300 && status < 400) {
            String location = response.headers().firstValue("Location").orElse("nowhere");
            throw call.permanent("image '" + imageKey + "': " + url + " answered HTTP " + status + ", a redirect to "
                    + location + "; put the final URL in " + setting);
        }
        if (status >= 400) {
            throw call.permanent("image '" + imageKey + "': " + url + " answered HTTP " + status
                    + "; fix " + setting);
        }
        if (status < 200) {
            throw call.failure(ErrorKind.TRANSIENT, "image '" + imageKey + "': " + url + " answered an unexpected HTTP "
                    + status + "; retry", null);
        }
        Optional<String> encoding = response.headers().firstValue("Content-Encoding");
        if (encoding.isPresent() && !encoding.get().equalsIgnoreCase("identity")) {
            throw call.permanent("image '" + imageKey + "': " + url + " sent the image with Content-Encoding "
                    + encoding.get() + " although the bytes as they are were asked for; serve the image uncompressed");
        }
        OptionalLong length = response.headers().firstValueAsLong("Content-Length");
        if (length.isEmpty()) {
            throw call.permanent("image '" + imageKey + "': " + url + " sent no Content-Length; the volume's size must"
                    + " be known before the upload, so serve the image from a server that sends it (any plain file"
                    + " server does)");
        }
        if (length.getAsLong() <= 0) {
            throw call.permanent("image '" + imageKey + "': " + url + " is empty (Content-Length "
                    + length.getAsLong() + "); fix " + setting);
        }
        return length.getAsLong();
    }
}
