package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Decides whether an image response can be used, and returns its Content-Length when it can.
 *
 * <p>4xx means the configured URL is wrong: PERMANENT. 5xx and 429 mean the server is failing or
 * overloaded: TRANSIENT. A redirect the client did not follow is PERMANENT: the configuration
 * must name the URL it leads to. A response without a Content-Length, or with a zero one, is
 * PERMANENT: the download is checked against the announced length, so a server that only chunks
 * cannot be used. A Content-Encoding other than identity is PERMANENT: the bytes would not be the
 * published file.
 */
final class ResponseClassifier {
    private static final int TOO_MANY_REQUESTS = 429;

    private ResponseClassifier() {
    }

    /** Whether the status is 2xx. */
    static boolean isSuccess(HttpResponse<?> response) {
        return response.statusCode() / 100 == 2;
    }

    /**
     * The length of the published file, from a usable response.
     *
     * @throws ImageFetchException {@link Reason#UNUSABLE_RESPONSE}, classified as above
     */
    static long publishedLength(HttpResponse<?> response, FetchFailures failures) {
        checkStatus(response, failures);
        checkEncoding(response, failures);
        return checkLength(response, failures);
    }

    private static void checkStatus(HttpResponse<?> response, FetchFailures failures) {
        int status = response.statusCode();
        String answered = failures.url() + " answered HTTP " + status;
        if (status / 100 == 2) {
            return;
        }
        if (status == TOO_MANY_REQUESTS || status >= 500) {
            throw failures.transientFailure(Reason.UNUSABLE_RESPONSE, answered + "; the server is overloaded or"
                    + " failing, retry later", null);
        }
        if (status == 401 || status == 407) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, answered + ", it asks for credentials; credentials"
                    + " in the URL are not sent, so publish the image where it needs none, or use a signed URL", null);
        }
        if (status / 100 == 4) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, answered + "; fix the image URL", null);
        }
        if (status / 100 == 3) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, answered + ", a redirect" + redirectTarget(response)
                    + " that the HTTP client did not follow; configure the URL it redirects to", null);
        }
        throw failures.transientFailure(Reason.UNUSABLE_RESPONSE, failures.url() + " answered an unexpected HTTP "
                + status + "; retry, and check the server if it repeats", null);
    }

    private static void checkEncoding(HttpResponse<?> response, FetchFailures failures) {
        Optional<String> encoding = response.headers().firstValue("Content-Encoding");
        if (encoding.isPresent() && !encoding.get().strip().toLowerCase(Locale.ROOT).equals("identity")) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, failures.url() + " sent the image with"
                    + " Content-Encoding " + encoding.get().strip() + " although the file as it is was asked for;"
                    + " make the server send the file unencoded (a compressed image is published as a file such as"
                    + " disk.qcow2.gz and declared so, not encoded in transit)", null);
        }
    }

    private static long checkLength(HttpResponse<?> response, FetchFailures failures) {
        OptionalLong length;
        try {
            length = response.headers().firstValueAsLong("Content-Length");
        } catch (NumberFormatException invalid) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, failures.url() + " sent a Content-Length that is not"
                    + " a number; fix the server", null);
        }
        if (length.isEmpty()) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, failures.url() + " sent no Content-Length; the server"
                    + " must send the image's length, because the download is checked against it (any plain file"
                    + " server does; a server that only sends chunked responses cannot be used)", null);
        }
        if (length.getAsLong() <= 0) {
            throw failures.permanent(Reason.UNUSABLE_RESPONSE, failures.url() + " sent an empty image (Content-Length "
                    + length.getAsLong() + "); fix the image URL or the file on the server", null);
        }
        return length.getAsLong();
    }

    /** " to scheme://host" for a Location header, never its path or query; empty without one. */
    private static String redirectTarget(HttpResponse<?> response) {
        Optional<String> location = response.headers().firstValue("Location");
        if (location.isEmpty()) {
            return "";
        }
        try {
            URI target = response.uri().resolve(location.get().strip());
            return target.getHost() == null ? "" : " to " + RedactedUrl.of(target);
        } catch (IllegalArgumentException unparsable) {
            return "";
        }
    }
}
