package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One fetch or size probe of an image: its time limits, requests, answers' classification and failures,
 * of which the first recorded is reported, whatever later failures it causes on its way out.
 */
final class FetchAttempt {
    /** {@link HttpRequest#timeout} must be positive; this stands in for "no time left". */
    private static final Duration SHORTEST_TIMEOUT = Duration.ofMillis(1);

    private final URI source;
    private final RedactedUrl url;
    private final Deadline caller;
    private final Deadline bodyEnd;
    private final TransferBudget budget;
    private final Duration idleLimit;
    private final boolean callerFirst;
    private final AtomicReference<ImageFetchException> first = new AtomicReference<>();

    private FetchAttempt(URI source, Deadline caller, Deadline bodyEnd, TransferBudget budget, Duration idleLimit) {
        this.source = source;
        this.url = RedactedUrl.of(source);
        this.caller = caller;
        this.bodyEnd = bodyEnd;
        this.budget = budget;
        this.idleLimit = idleLimit;
        this.callerFirst = budget == null || caller.isBounded() && caller.remaining().compareTo(bodyEnd.remaining()) <= 0;
    }

    /** A fetch starting now, whose body must end within {@code budget}'s body limit. */
    static FetchAttempt transfer(URI source, Deadline caller, TransferBudget budget, Duration idleLimit) {
        return new FetchAttempt(source, caller, Deadline.after(budget.bodyLimit()), budget, idleLimit);
    }

    /** A size probe: the caller's deadline (which includes any per-call budget) is the only limit. */
    static FetchAttempt probe(URI source, Deadline caller, Duration idleLimit) {
        return new FetchAttempt(source, caller, Deadline.none(), null, idleLimit);
    }

    RedactedUrl url() {
        return url;
    }

    /** The URL as configured, secrets and all: for the request only, never for a message. */
    URI source() {
        return source;
    }

    /** The time left until the earlier limit; zero once it passed. */
    Duration remaining() {
        Duration callerLeft = caller.remaining();
        Duration bodyLeft = bodyEnd.remaining();
        return callerLeft.compareTo(bodyLeft) <= 0 ? callerLeft : bodyLeft;
    }

    /** Sends a {@code method} request and returns once the response headers are in. */
    HttpResponse<SourceStream> send(HttpClient client, String method) {
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted("interrupted before the image was requested from " + url, null);
        }
        if (remaining().isZero()) {
            throw timeUp("before the image was requested", null);
        }
        // The client's request timeout ends with the response headers, so it is the headers' idle limit.
        Duration left = remaining();
        Duration headerWait = idleLimit.compareTo(left) < 0 ? idleLimit : left;
        HttpRequest request = HttpRequest.newBuilder(withoutUserInformation(source))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Accept-Encoding", "identity")
                .timeout(headerWait.compareTo(SHORTEST_TIMEOUT) < 0 ? SHORTEST_TIMEOUT : headerWait)
                .build();
        try {
            return client.send(request, info -> new SourceStream(idleLimit));
        } catch (HttpTimeoutException timeout) {
            if (headerWait.equals(idleLimit) && !remaining().isZero()) {
                throw stalled("in answer to the " + method + " request: no response headers arrived, 0 bytes of the"
                        + " image received", timeout);
            }
            throw timeUp("while waiting for the server to answer the " + method + " request", timeout);
        } catch (IOException unreachable) {
            throw transientFailure(Reason.UNREACHABLE, "could not fetch the image from " + url + " ("
                    + url.describe(unreachable) + "); check that the server is reachable from this machine, then"
                    + " retry", unreachable);
        } catch (InterruptedException interrupted) {
            throw interrupted("interrupted while waiting for " + url + " to answer", interrupted);
        }
    }

    /** {@code url} with its user information and fragment removed, everything else as it was written. */
    static URI withoutUserInformation(URI url) {
        String authority = url.getRawAuthority();
        String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String query = url.getRawQuery() == null ? "" : "?" + url.getRawQuery();
        try {
            return new URI(url.getScheme() + "://" + hostAndPort + path + query);
        } catch (URISyntaxException impossible) {
            // Every part comes from a URI that parsed, in its raw form, so the result parses too.
            throw new IllegalStateException("the image URL could not be rebuilt without its user information");
        }
    }

    /** The length of the published file, from a usable response; else a {@link Reason#UNUSABLE_RESPONSE}. */
    long publishedLength(HttpResponse<?> response) {
        return publishedLength(response.statusCode(), response.headers(), response.uri());
    }

    /** As {@link #publishedLength(HttpResponse)}, from an answer's parts; {@code answeredUrl} answered. */
    long publishedLength(int status, HttpHeaders headers, URI answeredUrl) {
        String answered = url + " answered HTTP " + status;
        if (status == 429 || status >= 500) {
            throw transientFailure(Reason.UNUSABLE_RESPONSE, answered + "; the server is overloaded or failing, retry"
                    + " later", null);
        }
        if (status == 401 || status == 407) {
            throw permanent(Reason.UNUSABLE_RESPONSE, answered + ", it asks for credentials; credentials in the URL"
                    + " are not sent, so publish the image where it needs none, or use a signed URL", null);
        }
        if (status / 100 == 4) {
            throw permanent(Reason.UNUSABLE_RESPONSE, answered + "; fix the image URL", null);
        }
        if (status / 100 == 3) {
            throw permanent(Reason.UNUSABLE_RESPONSE, answered + ", a redirect" + redirectTarget(headers, answeredUrl)
                    + " that the HTTP client did not follow; configure the URL it redirects to", null);
        }
        if (status / 100 != 2) {
            throw transientFailure(Reason.UNUSABLE_RESPONSE, url + " answered an unexpected HTTP " + status
                    + "; retry, and check the server if it repeats", null);
        }
        Optional<String> encoding = headers.firstValue("Content-Encoding").map(String::strip);
        if (encoding.isPresent() && !encoding.get().toLowerCase(Locale.ROOT).equals("identity")) {
            throw permanent(Reason.UNUSABLE_RESPONSE, url + " sent the image with Content-Encoding "
                    + encoding.get() + " although the file as it is was asked for; make the server send the"
                    + " file unencoded (a compressed image is published as a file such as disk.qcow2.gz and declared"
                    + " so, not encoded in transit)", null);
        }
        OptionalLong length;
        try {
            length = headers.firstValueAsLong("Content-Length");
        } catch (NumberFormatException invalid) {
            throw permanent(Reason.UNUSABLE_RESPONSE, url + " sent a Content-Length that is not a number; fix the"
                    + " server", null);
        }
        if (length.isEmpty()) {
            throw permanent(Reason.UNUSABLE_RESPONSE, url + " sent no Content-Length; the server must send the"
                    + " image's length, because the download is checked against it (any plain file server does; a"
                    + " server that only sends chunked responses cannot be used)", null);
        }
        if (length.getAsLong() <= 0) {
            throw permanent(Reason.UNUSABLE_RESPONSE, url + " sent an empty image (Content-Length "
                    + length.getAsLong() + "); fix the image URL or the file on the server", null);
        }
        return length.getAsLong();
    }

    /** " to scheme://host" for a Location header, never its path or query; empty without one. */
    private static String redirectTarget(HttpHeaders headers, URI answered) {
        try {
            Optional<URI> target = headers.firstValue("Location")
                    .map(location -> answered.resolve(location.strip()));
            return target.isEmpty() || target.get().getHost() == null ? "" : " to " + RedactedUrl.of(target.get());
        } catch (IllegalArgumentException unparsable) {
            return "";
        }
    }

    /** A failure a retry cannot heal; {@code cause} is redacted here. */
    ImageFetchException permanent(Reason reason, String message, Throwable cause) {
        return create(ErrorKind.PERMANENT, reason, message, cause);
    }

    /** A failure a retry may heal; {@code cause} is redacted here. */
    ImageFetchException transientFailure(Reason reason, String message, Throwable cause) {
        return create(ErrorKind.TRANSIENT, reason, message, cause);
    }

    /** Sets the interrupt flag again: catching the interruption cleared it, and the caller must still see it. */
    ImageFetchException interrupted(String message, Throwable cause) {
        Thread.currentThread().interrupt();
        return create(ErrorKind.TRANSIENT, Reason.INTERRUPTED, message, cause);
    }

    /** Running out of time, as the caller's deadline or the transfer budget, whichever came first. */
    ImageFetchException timeUp(String when, Throwable cause) {
        if (callerFirst) {
            return transientFailure(Reason.DEADLINE, "the caller's deadline passed " + when + " from " + url
                    + "; retry with a longer deadline if this repeats", cause);
        }
        return transientFailure(Reason.TRANSFER_BUDGET, "the download from " + url + " did not finish within the"
                + " transfer budget of " + text(budget.transfer()) + " (the body must end "
                + text(budget.uploadGrace()) + " before it): it stopped " + when + "; retry, and if it repeats, raise"
                + " the transfer budget or use a faster mirror", cause);
    }

    /** A server silent for the idle limit; {@code when} says what it left unanswered. */
    ImageFetchException stalled(String when, Throwable cause) {
        return transientFailure(Reason.STALLED, "the image server " + url + " sent nothing for " + text(idleLimit)
                + " (imageIdleTimeout) " + when + "; retry, and if it repeats, check the server or use another"
                + " mirror (or raise imageIdleTimeout for a server that pauses that long)", cause);
    }

    private ImageFetchException create(ErrorKind kind, Reason reason, String message, Throwable cause) {
        Throwable redacted = cause instanceof ImageFetchException own ? own : url.redact(cause);
        return new ImageFetchException(kind, reason, message, redacted);
    }

    /** Records {@code failure} unless one was; returns the first in an IOException, all that decoders pass on. */
    IOException fail(ImageFetchException failure) {
        first.compareAndSet(null, failure);
        return new IOException(first.get().getMessage(), first.get());
    }

    ImageFetchException failure() {
        return first.get();
    }

    void throwIfFailed() throws IOException {
        ImageFetchException failure = first.get();
        if (failure != null) {
            throw fail(failure);
        }
    }

    /** {@code duration} as a message shows it, in the largest whole units: {@code 1m30s}, {@code 250ms}. */
    static String text(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            return "0s";
        }
        String text = (duration.toHours() > 0 ? duration.toHours() + "h" : "")
                + (duration.toMinutesPart() > 0 ? duration.toMinutesPart() + "m" : "")
                + (duration.toSecondsPart() > 0 ? duration.toSecondsPart() + "s" : "")
                + (duration.toMillisPart() > 0 ? duration.toMillisPart() + "ms" : "");
        return text.isEmpty() ? "<1ms" : text;
    }
}
