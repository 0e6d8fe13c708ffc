package dev.egressproxies.kvm.common.testing;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/**
 * The answer libvirtd gives to a request for a domain's metadata element in a namespace: the
 * element of that namespace, written without its prefix and without any namespace. A real
 * libvirtd turns {@code <ep:instance xmlns:ep="...">} into plain {@code <instance>} (checked with
 * {@code virsh metadata}), and a reader that insists on the namespace fails against it.
 */
final class LibvirtMetadata {
    private LibvirtMetadata() {
    }

    /**
     * The element in {@code namespaceUri} among the children of a domain's {@code <metadata>}, in
     * libvirt's form, or empty when there is none.
     *
     * @param metadata the content of the {@code <metadata>} element as it was defined
     * @throws IllegalStateException when the content is not well-formed, which libvirt would have
     *                               refused at define time, so a test set it up wrongly
     */
    static Optional<String> elementIn(String metadata, String namespaceUri) {
        Element root = parse("<metadata>" + metadata + "</metadata>").getDocumentElement();
        for (Node child = root.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element element && namespaceUri.equals(element.getNamespaceURI())) {
                Document stripped = newDocument();
                stripped.appendChild(withoutNamespace(stripped, element));
                return Optional.of(serialize(stripped));
            }
        }
        return Optional.empty();
    }

    private static Node withoutNamespace(Document target, Node node) {
        if (!(node instanceof Element element)) {
            return target.importNode(node, false);
        }
        Element copy = target.createElement(element.getLocalName());
        for (int index = 0; index < element.getAttributes().getLength(); index++) {
            Node attribute = element.getAttributes().item(index);
            if (!"xmlns".equals(attribute.getPrefix()) && !"xmlns".equals(attribute.getNodeName())) {
                copy.setAttribute(attribute.getLocalName(), attribute.getNodeValue());
            }
        }
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling()) {
            copy.appendChild(withoutNamespace(target, child));
        }
        return copy;
    }

    private static Document parse(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
        } catch (Exception malformed) {
            throw new IllegalStateException("libvirt would have refused this metadata at define time: " + xml,
                    malformed);
        }
    }

    private static Document newDocument() {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static String serialize(Document document) {
        try {
            var transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            StringWriter text = new StringWriter();
            transformer.transform(new DOMSource(document), new StreamResult(text));
            return text.toString();
        } catch (Exception impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
