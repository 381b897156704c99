"""Legal and information pages of the site, served under ``/disclaimer/<slug>``.

The texts are plain Spanish (es-CL) prose: no HTML and no markdown, because the
pages render every paragraph as text. Each page is a :class:`LegalPage` made of
:class:`LegalSection` blocks. ``LEGAL_PAGES`` keeps the display order (footer and
index), ``LEGAL_BY_SLUG`` indexes them by URL segment and :func:`legal_page`
looks one up.

All texts state the same duties of care: adults only, age and consent checks for
advertisers, staff review before publication, location data stripped from
photos, advertising directory only (no payments between clients and
advertisers), zero tolerance for trafficking, minors and coercion, and the report
channel at ``/disclaimer/report``.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.settings import get_settings

SITE_NAME = get_settings().site_name
CONTACT_EMAIL = "legal@escortschile.example"
REPORT_PATH = "/disclaimer/report"
LAST_UPDATED = "Última actualización: 26 de noviembre de 2026"


@dataclass(frozen=True)
class LegalSection:
    """One headed block of a legal page; each paragraph is plain text."""

    heading: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class LegalPage:
    """A legal or information page: URL slug, title (also H1), meta description and sections."""

    slug: str  # URL segment under /disclaimer/
    title: str  # page <title> and H1
    description: str  # one-sentence meta description (<= 160 chars)
    sections: tuple[LegalSection, ...]


_PRIVACIDAD = LegalPage(
    slug="privacidad",
    title="Política de privacidad",
    description=(
        f"Cómo {SITE_NAME} trata tus datos personales conforme a la ley chilena, "
        "qué guardamos en tu dispositivo y cómo ejercer tus derechos."
    ),
    sections=(
        LegalSection(
            heading="Alcance de esta política",
            paragraphs=(
                LAST_UPDATED,
                f"Esta política explica qué datos personales recopila {SITE_NAME}, con qué "
                "finalidad los utiliza, por cuánto tiempo los conserva y cómo puedes "
                "ejercer tus derechos. Se aplica a todas las personas que visitan el sitio, "
                "a quienes crean una cuenta y a quienes publican anuncios.",
                f"{SITE_NAME} es un directorio de anuncios clasificados para personas "
                "adultas. Solo pueden navegar y publicar en el sitio personas mayores de 18 "
                "años.",
            ),
        ),
        LegalSection(
            heading="Marco legal",
            paragraphs=(
                "Tratamos los datos personales conforme a la legislación chilena, en "
                "particular la Ley N° 19.628 sobre protección de la vida privada y la Ley "
                "N° 21.719 de protección de datos personales, que moderniza ese régimen y "
                "crea la Agencia de Protección de Datos Personales, en los términos y plazos "
                "de su entrada en vigencia.",
                "Solo tratamos datos cuando existe una base legal para hacerlo: tu "
                "consentimiento, la ejecución del acuerdo que aceptas al publicar, el "
                "cumplimiento de obligaciones legales o la protección de las personas frente "
                "a delitos como la trata o la explotación de menores.",
            ),
        ),
        LegalSection(
            heading="Datos que recopilamos",
            paragraphs=(
                "De los visitantes no recopilamos datos que los identifiquen. De las personas "
                "registradas guardamos el correo electrónico, la contraseña cifrada y los "
                "datos necesarios para administrar la cuenta.",
                "De las personas anunciantes tratamos, además, los antecedentes que acreditan "
                "su mayoría de edad y su consentimiento para publicar, el contenido de sus "
                "anuncios, los datos de contacto que ellas deciden mostrar y el registro de "
                "los servicios de publicidad contratados.",
                "Las fotografías se procesan al subirlas para eliminar los metadatos de "
                "ubicación (EXIF y GPS), de modo que no revelen dónde fueron tomadas. Los "
                "documentos de verificación no se publican y solo los revisa nuestro equipo.",
            ),
        ),
        LegalSection(
            heading="Cookies y almacenamiento en tu dispositivo",
            paragraphs=(
                "El sitio guarda en tu dispositivo únicamente la confirmación de que eres "
                "mayor de edad y, si iniciaste sesión, un identificador de sesión que te permite "
                "mantenerte conectado.",
                "No utilizamos cookies publicitarias, rastreadores de terceros ni "
                "herramientas que elaboren perfiles de tu navegación. Puedes borrar estos datos "
                "en cualquier momento desde la configuración de tu navegador; en ese caso te "
                "volveremos a pedir la confirmación de edad.",
            ),
        ),
        LegalSection(
            heading="Finalidades, conservación y comunicación de datos",
            paragraphs=(
                "Usamos los datos para publicar y administrar anuncios, revisar cada anuncio "
                "antes de su publicación, verificar la edad y el consentimiento de las "
                "personas anunciantes, prevenir fraudes y abusos, y responder consultas y "
                "denuncias.",
                "Conservamos los datos mientras la cuenta esté activa y, después, solo "
                "durante el tiempo necesario para cumplir obligaciones legales o resguardar "
                "antecedentes relacionados con una denuncia o una investigación.",
                "No vendemos ni cedemos datos personales con fines comerciales. Solo los "
                "comunicamos a las autoridades competentes cuando la ley lo exige, cuando lo "
                "ordena un tribunal o el Ministerio Público, o cuando existen indicios de "
                "trata de personas, participación de menores de edad o coerción.",
            ),
        ),
        LegalSection(
            heading="Plazos de conservación",
            paragraphs=(
                "Los borradores de publicaciones que pasan 180 días sin cambios se eliminan, con sus fotos. "
                "Te avisamos por correo 14 días antes, una sola vez por borrador; si guardas cualquier paso "
                "del borrador antes de esa fecha, el plazo vuelve a empezar.",
                "Las sesiones que terminaron (porque cerraste sesión, vencieron o quedaron sin uso) y los "
                "códigos de un solo uso que enviamos por correo se borran cuando ya no sirven.",
                "Las denuncias cerradas pierden el dato de contacto de quien denunció 12 meses después de "
                "cerrarse; la denuncia misma se conserva, sin ese dato.",
                "El archivo con tus datos que pides desde Mi cuenta se borra 48 horas después de enviarte el enlace.",
            ),
        ),
        LegalSection(
            heading="Tus derechos",
            paragraphs=(
                "Puedes solicitar el acceso a tus datos, su rectificación, su "
                "cancelación o eliminación, su portabilidad y oponerte a su tratamiento, además de los demás "
                "derechos que te reconozca la ley vigente. Los tres primeros los ejerces tú "
                "mismo o tú misma desde Mi cuenta (/mi-cuenta), con tu sesión iniciada.",
                "Descargar mis datos: te preparamos un archivo ZIP con un archivo JSON de todo lo que "
                "guardamos de tu cuenta (tu perfil, tus publicaciones con su historial, sus estadísticas, tus "
                "solicitudes de mejora y de verificación con sus decisiones, las fechas de tus sesiones, tus "
                "favoritas guardadas en la cuenta y tus preferencias de avisos) y tus propias fotos. No incluye "
                "datos de otras personas, como quienes envían denuncias, ni las notas internas del equipo. Lo "
                "preparamos en segundo plano y te enviamos el enlace por correo; el enlace vale 48 horas y solo "
                "funciona con tu sesión iniciada.",
                "Corregir mis datos: tus publicaciones las editas en Mis publicaciones, y cada cambio a una "
                "publicación visible pasa por revisión; tu contraseña, desde el menú de tu cuenta; tu correo, en "
                "Mi cuenta con tu contraseña: el cambio se hace cuando abres el enlace que enviamos a la nueva "
                "dirección.",
                "Eliminar mi cuenta: con tu contraseña (y, para el equipo del sitio, el segundo factor) "
                "eliminamos tus publicaciones, las fotos en todos nuestros almacenamientos, tus solicitudes de "
                "verificación, tus sesiones, estadísticas y favoritas. En el registro de auditoría del equipo "
                "tu cuenta queda solo como un identificador anónimo, y las denuncias sobre tus publicaciones se "
                "conservan sin vínculo con ellas. El último administrador activo no puede eliminar su propia "
                "cuenta. Después puedes crear una cuenta nueva con el mismo correo.",
                "Para cualquier otra solicitud, escríbenos a legal@escortschile.example desde el correo "
                "asociado a tu cuenta, indicando tu solicitud. Podremos pedirte antecedentes "
                "adicionales para confirmar tu identidad antes de responder, y te "
                "contestaremos dentro de los plazos legales.",
            ),
        ),
    ),
)

_TERMINOS = LegalPage(
    slug="terminos",
    title="Términos y condiciones",
    description=(
        f"Condiciones de uso de {SITE_NAME}, directorio de anuncios solo para mayores de 18 "
        "años, regidas por la ley chilena."
    ),
    sections=(
        LegalSection(
            heading="Aceptación de los términos",
            paragraphs=(
                LAST_UPDATED,
                f"Al acceder a {SITE_NAME} o utilizar cualquiera de sus servicios, "
                "aceptas estos términos y condiciones y nuestra política de privacidad. Si no "
                "estás de acuerdo con ellos, te pedimos no utilizar el sitio.",
                "Podemos modificar estos términos para reflejar cambios legales o del "
                "servicio. La versión vigente es siempre la publicada en esta página, con su "
                "fecha de actualización.",
            ),
        ),
        LegalSection(
            heading="Uso exclusivo para personas adultas",
            paragraphs=(
                "El sitio está destinado exclusivamente a personas mayores de 18 años. Al "
                "ingresar, declaras ser mayor de edad y que el contenido para adultos no "
                "está prohibido en el lugar desde donde accedes.",
                "Las personas anunciantes deben acreditar su mayoría de edad y su "
                "consentimiento para publicar, y aceptar el acuerdo para anunciantes antes de "
                "que su anuncio sea revisado.",
            ),
        ),
        LegalSection(
            heading="Naturaleza del servicio",
            paragraphs=(
                f"{SITE_NAME} es únicamente un directorio de anuncios. No intermedia pagos "
                "por servicios entre clientes y personas anunciantes, no organiza encuentros "
                "ni participa en ellos, y no es parte de ningún acuerdo que los usuarios "
                "celebren entre sí.",
                "Cada anuncio es revisado por nuestro equipo antes de publicarse. Esta "
                "revisión busca impedir contenido prohibido, pero no convierte al sitio en "
                "garante de la veracidad de cada anuncio ni de la conducta de quienes lo "
                "utilizan.",
            ),
        ),
        LegalSection(
            heading="Conductas y contenidos prohibidos",
            paragraphs=(
                "Está estrictamente prohibido publicar o promover contenido relacionado con "
                "la trata de personas, la participación de menores de edad, la coerción o la "
                "explotación de cualquier persona, así como publicar anuncios de terceros sin "
                "su consentimiento.",
                "Tampoco se permite suplantar la identidad de otra persona, usar fotografías "
                "ajenas sin autorización, infringir derechos de autor ni utilizar el sitio "
                "para fines ilícitos.",
                "Retiraremos de inmediato el contenido que infrinja estas reglas, "
                "suspenderemos las cuentas involucradas y denunciaremos los hechos a las "
                "autoridades cuando corresponda. Cualquier persona puede informar un abuso en "
                "/disclaimer/report.",
            ),
        ),
        LegalSection(
            heading="Servicios de publicidad pagados",
            paragraphs=(
                "Las mejoras pagadas, como los niveles Diamante, Ruby, Platino y las "
                "posiciones de Chicas del día, son servicios de ubicación publicitaria: dan "
                "mayor visibilidad a un anuncio dentro del directorio durante el período "
                "contratado.",
                "Los precios se informan en pesos chilenos (CLP) antes de la contratación. "
                "El pago de una mejora no exime al anuncio de la revisión previa ni del "
                "cumplimiento de estos términos, y no da derecho a reembolso si el anuncio es "
                "retirado por infringirlos.",
            ),
        ),
        LegalSection(
            heading="Responsabilidad, ley aplicable y jurisdicción",
            paragraphs=(
                "Cada persona anunciante es responsable del contenido que publica y de la "
                f"veracidad de la información que entrega. {SITE_NAME} no responde por los "
                "acuerdos o hechos que ocurran entre usuarios fuera del sitio.",
                "Estos términos se rigen por las leyes de la República de Chile. Cualquier "
                "controversia derivada de ellos se someterá a la competencia de los "
                "tribunales ordinarios de justicia de la ciudad de Santiago, sin perjuicio de "
                "los derechos que la ley de protección al consumidor te reconozca.",
                "Puedes dirigir tus consultas sobre estos términos a legal@escortschile.example.",
            ),
        ),
    ),
)

_ACUERDOS = LegalPage(
    slug="acuerdos",
    title="Acuerdo para anunciantes",
    description=(
        "Requisitos y compromisos que toda persona anunciante acepta antes de publicar en "
        f"{SITE_NAME}: edad, consentimiento y contenido permitido."
    ),
    sections=(
        LegalSection(
            heading="Quiénes pueden publicar",
            paragraphs=(
                f"Solo pueden publicar anuncios en {SITE_NAME} personas mayores de 18 años "
                "que actúen por sí mismas, de manera libre y voluntaria. Este acuerdo "
                "complementa los términos y condiciones del sitio y debe aceptarse antes de "
                "enviar el primer anuncio.",
                "Cada anuncio debe corresponder a la persona que lo publica. No se aceptan "
                "anuncios publicados por terceros, agencias o intermediarios en nombre de "
                "otra persona sin su consentimiento.",
            ),
        ),
        LegalSection(
            heading="Verificación de edad y consentimiento",
            paragraphs=(
                "Antes de publicar, debes acreditar tu mayoría de edad y tu "
                "consentimiento para aparecer en el anuncio, mediante los antecedentes que "
                "nuestro equipo te solicite. Sin esa acreditación, el anuncio no será "
                "publicado.",
                "Los documentos que entregues para la verificación se usan solo para ese fin, "
                "no se publican y se tratan conforme a nuestra política de privacidad.",
            ),
        ),
        LegalSection(
            heading="Revisión previa y contenido del anuncio",
            paragraphs=(
                "Todo anuncio, y cada modificación relevante, es revisado por nuestro equipo "
                "antes de publicarse. Podemos pedirte cambios, rechazar un anuncio o "
                "retirarlo si no cumple este acuerdo.",
                "Las fotografías deben ser tuyas, recientes y publicadas con tu autorización. "
                "Al subirlas, el sitio elimina automáticamente los datos de ubicación (EXIF y "
                "GPS). Los textos no pueden incluir lenguaje explícito, ofrecer la "
                "participación de otras personas ni contener información falsa.",
            ),
        ),
        LegalSection(
            heading="Relación con el sitio",
            paragraphs=(
                f"{SITE_NAME} es un directorio de anuncios. No intermedia pagos por "
                "servicios entre clientes y personas anunciantes, no cobra comisiones sobre "
                "ellos y no participa en los encuentros que pudieran acordarse.",
                "Los únicos pagos que haces al sitio corresponden a servicios de "
                "ubicación publicitaria opcionales, como los niveles Diamante, Ruby, Platino "
                "y Chicas del día, cuyos precios se informan en pesos chilenos (CLP).",
            ),
        ),
        LegalSection(
            heading="Prohibiciones y consecuencias",
            paragraphs=(
                "Queda prohibida cualquier forma de trata de personas, explotación, coerción "
                "o participación de menores de edad. Si detectamos indicios de estas "
                "situaciones, retiraremos el contenido, conservaremos los antecedentes y los "
                "pondremos a disposición de las autoridades.",
                "Si alguien te obliga a publicar o controla tu anuncio contra tu voluntad, "
                "puedes pedir ayuda de forma confidencial en /disclaimer/report o llamando a "
                "Carabineros al 133 o a la PDI al 134.",
            ),
        ),
    ),
)

_ABOUT = LegalPage(
    slug="about",
    title="Quiénes somos",
    description=(
        f"{SITE_NAME} es un directorio de anuncios clasificados para adultos en Chile, con "
        "revisión previa de cada anuncio y verificación de edad."
    ),
    sections=(
        LegalSection(
            heading="Nuestro servicio",
            paragraphs=(
                f"{SITE_NAME} es un directorio de anuncios clasificados para personas "
                "adultas, organizado por regiones y comunas de Chile. Permite que personas "
                "mayores de 18 años publiquen anuncios personales y que otras personas "
                "adultas los consulten.",
                "Somos solo un directorio de publicidad: no intermediamos pagos por servicios "
                "entre clientes y personas anunciantes y no participamos en los encuentros "
                "que ellas acuerden.",
            ),
        ),
        LegalSection(
            heading="Cómo cuidamos a las personas",
            paragraphs=(
                "Cada persona anunciante debe acreditar su mayoría de edad y su "
                "consentimiento, y aceptar nuestro acuerdo para anunciantes. Cada anuncio es "
                "revisado por nuestro equipo antes de publicarse.",
                "Las fotografías se publican sin datos de ubicación, porque eliminamos los "
                "metadatos EXIF y GPS al subirlas. Los anuncios que muestran la insignia "
                "Verificada pasaron además por una comprobación en vivo de identidad.",
            ),
        ),
        LegalSection(
            heading="Tolerancia cero frente al abuso",
            paragraphs=(
                "No aceptamos la trata de personas, la participación de menores de edad, la "
                "coerción ni los anuncios publicados sin el consentimiento de la persona que "
                "aparece en ellos. Cuando detectamos estas situaciones, retiramos el "
                "contenido y las informamos a las autoridades.",
                "Si sospechas de un anuncio, puedes informarlo, incluso de forma anónima, en /disclaimer/report.",
            ),
        ),
        LegalSection(
            heading="Contacto",
            paragraphs=(
                "Para consultas generales, solicitudes sobre datos personales o asuntos "
                "legales, escríbenos a legal@escortschile.example. Respondemos en días "
                "hábiles, en orden de llegada, dando prioridad a las denuncias.",
            ),
        ),
    ),
)

_DMCA = LegalPage(
    slug="dmca",
    title="Derechos de autor / DMCA",
    description=(
        f"Cómo solicitar a {SITE_NAME} el retiro de contenido que infringe derechos de "
        "autor y qué debe incluir tu notificación."
    ),
    sections=(
        LegalSection(
            heading="Respeto a los derechos de autor",
            paragraphs=(
                f"{SITE_NAME} respeta los derechos de autor y los derechos sobre la propia "
                "imagen. Las personas anunciantes solo pueden publicar fotografías y textos "
                "propios o que estén autorizadas a usar.",
                "Si eres titular de derechos sobre una obra, o representas a quien lo es, "
                "y consideras que un anuncio la utiliza sin autorización, puedes solicitar su "
                "retiro conforme a la Ley N° 17.336 sobre propiedad intelectual y, cuando "
                "corresponda, siguiendo el procedimiento de notificación conocido como DMCA.",
            ),
        ),
        LegalSection(
            heading="Cómo enviar una solicitud",
            paragraphs=(
                "Envía tu solicitud por correo electrónico a legal@escortschile.example, "
                'indicando en el asunto "Derechos de autor". Revisaremos cada solicitud y '
                "te informaremos lo resuelto.",
                "Si la fotografía publicada es tuya y fue usada sin tu consentimiento, te "
                "recomendamos además informarlo en /disclaimer/report, ya que la publicación "
                "no consentida de imágenes de una persona se trata con prioridad.",
            ),
        ),
        LegalSection(
            heading="Contenido de la notificación",
            paragraphs=(
                "Tu notificación debe incluir: la identificación de la obra protegida; la "
                "dirección web exacta del anuncio o de la imagen que la infringe; tu nombre "
                "completo y tus datos de contacto; y, si actúas en representación del titular, "
                "los antecedentes que acrediten esa representación.",
                "Debe incluir también una declaración de buena fe de que el uso denunciado no "
                "está autorizado por el titular ni por la ley, y una declaración de que la "
                "información entregada es exacta y de que eres el titular o estás "
                "facultado para actuar en su nombre, junto con tu firma física o "
                "electrónica.",
                "Las solicitudes incompletas pueden demorar la revisión, ya que deberemos "
                "pedirte los antecedentes faltantes.",
            ),
        ),
        LegalSection(
            heading="Retiro del contenido y contranotificación",
            paragraphs=(
                "Si la solicitud cumple los requisitos, retiraremos o deshabilitaremos el "
                "contenido y avisaremos a la persona anunciante que lo publicó.",
                "La persona anunciante que estime que el retiro fue un error puede enviar una "
                "contranotificación fundada al mismo correo. Las cuentas que infrinjan "
                "derechos de autor en forma reiterada serán suspendidas.",
            ),
        ),
    ),
)

_REPORT = LegalPage(
    slug="report",
    title="Denuncia de trata de personas y explotación",
    description=(
        f"Informa a {SITE_NAME} sobre posibles casos de trata, menores de edad, coerción o "
        "contenido publicado sin consentimiento."
    ),
    sections=(
        LegalSection(
            heading="Emergencias",
            paragraphs=(
                "Si una persona está en peligro inmediato, no esperes nuestra respuesta: llama "
                "a Carabineros al 133 o a la Policía de Investigaciones (PDI) al 134.",
                "Si la situación involucra a un niño, niña o adolescente, también puedes "
                "llamar a Fono Niños 147 de Carabineros.",
            ),
        ),
        LegalSection(
            heading="Qué puedes informar",
            paragraphs=(
                "Usa el formulario que aparece al final de esta página para informar "
                "cualquier anuncio que te parezca sospechoso, en especial si crees que puede "
                "tratarse de trata de personas o explotación, si la persona anunciada podría "
                "ser menor de edad, si alguien parece estar siendo obligado o controlado por "
                "terceros, o si el contenido fue publicado sin el consentimiento de la "
                "persona que aparece en él.",
                "Si eres la persona del anuncio y lo publicaron sin tu autorización, o si "
                "alguien te obliga a mantenerlo, también puedes usar este formulario para "
                "pedir que lo retiremos.",
            ),
        ),
        LegalSection(
            heading="Cómo tratamos tu denuncia",
            paragraphs=(
                "Cada denuncia es revisada por nuestro equipo. Cuando hay indicios de un "
                "delito, suspendemos el anuncio, conservamos los antecedentes y los ponemos a "
                "disposición de las autoridades competentes.",
                "Puedes denunciar de forma anónima. Si nos dejas un correo de contacto, lo "
                "usaremos solo para pedirte más información o contarte el resultado, y no "
                "lo compartiremos con la persona denunciada.",
                "Mientras más detalles entregues, como la dirección del anuncio, lo que te "
                "llamó la atención y cualquier otro antecedente útil, más rápido podremos "
                "actuar.",
            ),
        ),
        LegalSection(
            heading="Otros canales de denuncia en Chile",
            paragraphs=(
                "Nuestro formulario no reemplaza una denuncia ante las autoridades. Puedes "
                "denunciar directamente en la Fiscalía (Ministerio Público), en cualquier "
                "fiscalía local o a través de su sitio web, y en cualquier unidad de "
                "Carabineros o de la PDI.",
                "El Gobierno de Chile, a través de la Mesa Intersectorial sobre Trata de "
                "Personas, mantiene canales de orientación y denuncia para víctimas y "
                "testigos de trata, publicados en los sitios oficiales del Estado.",
            ),
        ),
    ),
)

_APLICACION_LEY = LegalPage(
    slug="aplicaciondelaley",
    title="Solicitudes de autoridades y aplicación de la ley",
    description=(
        "Cómo las policías, el Ministerio Público y los tribunales pueden solicitar "
        f"información a {SITE_NAME} y qué debe incluir la solicitud."
    ),
    sections=(
        LegalSection(
            heading="Colaboración con las autoridades",
            paragraphs=(
                f"{SITE_NAME} colabora con Carabineros, la Policía de Investigaciones, el "
                "Ministerio Público y los tribunales de justicia en la prevención e "
                "investigación de delitos, en especial la trata de personas, la explotación "
                "sexual y cualquier hecho que afecte a menores de edad.",
                "Esta página está dirigida a funcionarios de esas instituciones. Si eres "
                "particular y quieres informar un anuncio, usa el canal de denuncia en "
                "/disclaimer/report.",
            ),
        ),
        LegalSection(
            heading="Conservación de antecedentes",
            paragraphs=(
                "Cuando un anuncio es retirado por indicios de delito, conservamos los "
                "antecedentes asociados, como el contenido publicado, los registros de la "
                "cuenta y los documentos de verificación, para ponerlos a disposición de las "
                "autoridades.",
                "Las autoridades pueden pedir que preservemos antecedentes específicos "
                "mientras tramitan la orden correspondiente. Atenderemos esas solicitudes de "
                "preservación con prioridad.",
            ),
        ),
        LegalSection(
            heading="Cómo enviar una solicitud",
            paragraphs=(
                "Las solicitudes deben enviarse desde una casilla institucional a "
                "legal@escortschile.example, la dirección publicada en esta página, "
                'indicando en el asunto "Solicitud de autoridad".',
                "Entregamos datos personales de usuarios solo cuando la solicitud proviene "
                "de una autoridad competente y cuenta con la orden o autorización que exige "
                "la ley chilena, salvo en situaciones de emergencia en que exista riesgo "
                "para la vida o la integridad de una persona.",
            ),
        ),
        LegalSection(
            heading="Contenido de la solicitud",
            paragraphs=(
                "La solicitud debe indicar la institución, el nombre, cargo y datos de "
                "contacto del funcionario responsable, y el número de causa, RUC o parte "
                "policial al que se refiere.",
                "Debe identificar con precisión el anuncio o la cuenta, idealmente con su "
                "dirección web, y detallar la información requerida y el período al que "
                "corresponde. Debe acompañar, además, la orden judicial o la instrucción del "
                "Ministerio Público que la respalda, cuando sea necesaria.",
            ),
        ),
        LegalSection(
            heading="Información disponible",
            paragraphs=(
                f"Como directorio de anuncios, {SITE_NAME} no intermedia pagos por servicios "
                "entre clientes y personas anunciantes ni participa en los encuentros, por lo "
                "que no dispone de información sobre ellos.",
                "Podemos disponer, según el caso, del contenido de los anuncios, de los datos "
                "de la cuenta, de los antecedentes de verificación de edad y de los registros "
                "de los servicios de publicidad contratados.",
            ),
        ),
    ),
)

_VERIFICADA = LegalPage(
    slug="verificada",
    title="Anuncios verificados",
    description=(f"Qué significa la insignia Verificada en {SITE_NAME}, cómo se obtiene y qué no garantiza."),
    sections=(
        LegalSection(
            heading="Qué significa la insignia Verificada",
            paragraphs=(
                "La insignia Verificada indica que nuestro equipo comprobó, mediante una "
                "fotografía o un video tomado en vivo, que la persona que aparece en las "
                "fotografías del anuncio es la misma persona que lo publica y que es mayor de "
                "edad.",
                "Esta verificación es adicional a la acreditación de edad y consentimiento "
                "que exigimos a todas las personas anunciantes y a la revisión que hacemos de "
                "cada anuncio antes de publicarlo.",
            ),
        ),
        LegalSection(
            heading="Cómo se obtiene",
            paragraphs=(
                "La persona anunciante solicita la verificación desde su cuenta y envía una "
                "fotografía o un video en vivo siguiendo las instrucciones que le entregamos, "
                "por ejemplo, sosteniendo un código que le indicamos en ese momento.",
                "Nuestro equipo compara ese material con las fotografías del anuncio. El "
                "material de verificación no se publica y se trata conforme a nuestra "
                "política de privacidad.",
                "Si las fotografías del anuncio cambian de manera importante, podemos pedir "
                "una nueva verificación o retirar la insignia.",
            ),
        ),
        LegalSection(
            heading="Qué no garantiza",
            paragraphs=(
                "La insignia no garantiza la veracidad de todo lo que el anuncio afirma, la "
                "calidad de ningún servicio ni la conducta de la persona anunciante o de "
                "quienes la contacten.",
                f"Tampoco implica que {SITE_NAME} intermedie pagos ni participe en "
                "encuentros: seguimos siendo solo un directorio de anuncios. Te recomendamos "
                "actuar siempre con prudencia.",
            ),
        ),
        LegalSection(
            heading="Si algo no coincide",
            paragraphs=(
                "Si crees que un anuncio verificado usa fotografías de otra persona, o tienes "
                "dudas sobre la edad o el consentimiento de quien aparece en él, infórmalo en "
                "/disclaimer/report. Revisaremos el caso y, si corresponde, retiraremos la "
                "insignia y el anuncio.",
            ),
        ),
    ),
)

LEGAL_PAGES: tuple[LegalPage, ...] = (
    _PRIVACIDAD,
    _TERMINOS,
    _ACUERDOS,
    _ABOUT,
    _DMCA,
    _REPORT,
    _APLICACION_LEY,
    _VERIFICADA,
)

LEGAL_BY_SLUG: dict[str, LegalPage] = {page.slug: page for page in LEGAL_PAGES}


def legal_page(slug: str) -> LegalPage | None:
    """Return the legal page for ``slug``, or ``None`` when no page has that slug."""
    return LEGAL_BY_SLUG.get(slug)
