# Anteroom's buyer pages, in Spanish (tú-form, as common on Spanish-language ticketing sites).
# Ids are grouped by page; a `$n` is a whole number, written and made plural the
# language's way. Operator pages and the JSON API's messages are not here: they stay English.
# Terms: line = "cola", pre-queue = "precola", row = "fila", hold = "reserva", draw = "sorteo",
# the buyer's ticket in the draw = "número de sorteo".

## Numbers of time and money (app/src/words.rs)

duration-seconds = { $n ->
    [one] un segundo
    [many] { $n } de segundos
   *[other] { $n } segundos
}
duration-minutes = { $n ->
    [one] un minuto
    [many] { $n } de minutos
   *[other] { $n } minutos
}
duration-hours = { $n ->
    [one] 1 hora
    [many] { $n } de horas
   *[other] { $n } horas
}
# "1 hora y 5 minutos": $hours is duration-hours.
duration-hours-minutes = { $hours } y { $m ->
    [one] { $m } minuto
   *[other] { $m } minutos
}
# "aproximadamente 3 minutos": $duration is one of the durations above.
wait-about = aproximadamente { $duration }
# "aproximadamente entre 40 segundos y 2 minutos": two durations.
wait-range = aproximadamente entre { $low } y { $high }
# Both ends in seconds (more than one): "aproximadamente entre 20 y 40 segundos".
wait-range-seconds = aproximadamente entre { $low } y { $high } segundos
# Both ends in minutes (more than one): "aproximadamente entre 3 y 4 minutos".
wait-range-minutes = aproximadamente entre { $low } y { $high } minutos
wait-under-a-minute = menos de un minuto
countdown-days = { $days ->
    [one] 1 día
    [many] { $days } de días
   *[other] { $days } días
} { $hours } h

weekday = { $n ->
    [1] lunes
    [2] martes
    [3] miércoles
    [4] jueves
    [5] viernes
    [6] sábado
   *[7] domingo
}
month = { $n ->
    [1] enero
    [2] febrero
    [3] marzo
    [4] abril
    [5] mayo
    [6] junio
    [7] julio
    [8] agosto
    [9] septiembre
    [10] octubre
    [11] noviembre
   *[12] diciembre
}
# "martes, 1 de diciembre, 19:00": $weekday and $month are the names above, $time is 19:00.
day-and-time = { $weekday }, { $day } de { $month }, { $time }
day-and-time-with-year = { $weekday }, { $day } de { $month } de { $year }, { $time }
# "19:00 hora de Berlín"; $zone is zone-time below, or UTC.
time-in-zone = { $time } { $zone }
# A zone's name by its city: "hora de Berlín".
zone-time = hora de { $city }

## The outlook

outlook-likely = Es probable que queden asientos cuando llegue tu turno.
outlook-uncertain = Puede que queden asientos cuando llegue tu turno, o puede que no: depende de que se liberen asientos reservados.
outlook-unlikely = Es poco probable que queden asientos cuando llegue tu turno, salvo que se liberen muchos asientos reservados.

## Moving a place to another device

needs-device = En esta venta, cada lugar en la cola queda vinculado al dispositivo que lo obtuvo, y para ello se necesita JavaScript y un navegador capaz de generar una clave (WebCrypto). Este navegador no puede hacerlo, así que no puede obtener un lugar aquí. Abre esta página en un navegador actualizado y con JavaScript activado.
move-explained = En tu otro dispositivo, escanea este código, o abre allí esta venta y escribe el código en «{ moving-have-code }». Tu lugar se trasladará allí con su posición, una sola vez; después, esta página ya no tendrá lugar en la cola.
claim-refused = Ese código ya se usó, caducó o no existe, así que no se trasladó ningún lugar aquí. Conservas el lugar que esta página ya tenía en la cola.
claimed = Tu lugar se trasladó aquí desde tu otro dispositivo, con su posición.
moving-place-waiting = Tu otro dispositivo tiene el lugar n.º { $n } en la cola.
moving-place-in-line = Tu otro dispositivo tiene un lugar en la cola.
moving-place-admitted = Tu otro dispositivo ya tiene acceso a la venta.
moving-place-in-draw = Tu otro dispositivo participa en el sorteo.
own-place-given-up = Este dispositivo tiene el lugar n.º { $n } en la cola; si trasladas aquí el otro lugar, renuncias a este.
own-ticket-given-up = Este dispositivo participa en el sorteo; si trasladas aquí el otro lugar, renuncias a su número de sorteo.
# "Válido hasta las 19:14 hora de Berlín, una sola vez."
move-valid-until = Válido hasta las { $time }, una sola vez.
# $time: "19:04", $zone: "hora de Berlín".
place-moved = Tu lugar se trasladó a otro dispositivo a las { $time } ({ $zone }). Continúa allí; esta página ya no tiene lugar en la cola.
seats-coming = Es tu turno: tu mapa de asientos está en camino.
unreadable = Esta página no pudo leer la respuesta de nuestro servidor. Recárgala para volver a intentarlo.

## What a form posted without JavaScript comes back to ($wait: "aproximadamente 12 segundos")

note-released = Asientos liberados. Vuelven a estar disponibles para otras personas.
note-seat-taken = Alguien acaba de llevarse un asiento que elegiste, así que no se reservó nada. El mapa muestra ahora lo que queda; vuelve a elegir.
note-not-together = No quedan tantos asientos juntos en esa sección, así que no se reservó nada. Prueba con menos asientos o con otra sección.
note-no-seats = No elegiste ningún asiento. Marca los asientos que quieras o deja que busquemos los mejores.
note-too-many-seats = Son más asientos de los que cada comprador puede reservar en esta venta, así que no se reservó nada. Elige menos.
note-bad-form = No pudimos leer ese formulario, así que no se cambió nada. Aquí tienes la página de nuevo; inténtalo otra vez.
note-admission-ended = Se acabó tu tiempo para elegir asientos, así que volviste a la cola.
note-not-your-turn = Todavía no es tu turno para elegir asientos. Conservas tu lugar en la cola; esta página te dará acceso cuando llegue tu turno.
note-claim-conflict = Ese lugar no puede trasladarse a este navegador: el código es de este mismo navegador, o este navegador ya tiene acceso, o su lugar ya se trasladó una vez. No se cambió nada.
note-admission-missing = Tu navegador envió ese formulario sin tu acceso, así que no se reservó nada. Aquí tienes de nuevo el mapa de asientos; inténtalo otra vez.
note-no-session = Tu navegador envió ese formulario sin nuestra cookie de sesión, así que no pudimos saber que eras tú y no se cambió nada. Permite las cookies de este sitio y vuelve a intentarlo.
note-stale-form = Ese formulario venía de una visita anterior a esta página, así que no se cambió nada. Aquí tienes la página actualizada; inténtalo otra vez.
note-rate-limited = Lo intentaste demasiadas veces en el último minuto, así que no se cambió nada. Espera { $wait } y vuelve a intentarlo.
note-busy = Anteroom está al límite de su capacidad en este momento, así que no se cambió nada. Espera { $wait } y vuelve a intentarlo.
note-unavailable = Una parte de Anteroom no responde en este momento, así que no se cambió nada. Espera { $wait } y vuelve a intentarlo.
note-declined = El pago fue rechazado. Tus asientos siguen reservados; puedes volver a intentarlo.
note-pay-not-done = Tu pago aún no se completó. Tus asientos siguen reservados y nunca se cobran dos veces; espera { $wait } y vuelve a intentarlo.
note-hold-ended = Tu reserva terminó antes de que se pagara, así que no se cobró nada y los asientos volvieron a la venta. Si quieres, vuelve a elegir.
note-already-paid = Esos asientos ya están pagados, así que no se pueden liberar.
note-no-hold = No encontramos esa reserva a tu nombre, así que no se cambió nada. Aquí tienes tu situación actual.
note-not-open = La venta aún no ha empezado, así que no se cambió nada. Esta página te muestra cuánto falta.
note-failed = Algo salió mal por nuestra parte y no se pudo completar. Vuelve a intentarlo.

## What went wrong, by the API's error code

error-network = No podemos conectar con Anteroom. Revisa tu conexión; seguiremos intentándolo.
error-rate-limited = Hubo demasiados intentos desde tu red en el último minuto, así que no se cambió nada. Espera un momento y vuelve a intentarlo.
error-unavailable = Una parte de Anteroom no responde en este momento, así que no se cambió nada. Vuelve a intentarlo en unos segundos.
error-seat-unavailable = Alguien acaba de llevarse un asiento que elegiste, así que no se reservó nada. Vuelve a elegir.
error-not-admitted = No es tu turno para elegir asientos, o se acabó tu tiempo para elegir. Conservas tu lugar en la cola.
error-not-in-queue = Esta página ya no tiene lugar en la cola. Recárgala para obtener uno.
error-not-found = No encontramos lo que buscabas. Recarga la página para ver en qué punto estás.
error-not-open = La venta aún no ha empezado. Esta página te muestra cuánto falta.
error-conflict = Eso entró en conflicto con un cambio hecho hace un momento, así que no se cambió nada. Recarga la página y vuelve a intentarlo.
error-unauthorized = Tu navegador no envió nuestra cookie de sesión. Permite las cookies de este sitio y recarga la página.
error-forbidden = Tu cuenta no tiene permiso para hacer eso en esta venta.
error-bad-request = No pudimos leer esa solicitud, así que no se cambió nada. Vuelve a intentarlo.
error-internal = Algo salió mal por nuestra parte. Vuelve a intentarlo.


## The event's page around its stages (app/src/onsale/mod.rs)

page-finding-place = Buscando tu lugar en la cola…
page-sign-in-to-join = Inicia sesión para entrar en la cola
page-not-for-your-account = Esta venta no está abierta para tu cuenta
page-sign-in = Iniciar sesión
page-all-events = Ver todos los eventos
# The sign-in's own pages, when it does not go through (each with a way back).
signin-not-set-up-title = El inicio de sesión no está configurado aquí
signin-not-set-up = El sitio de esta venta no tiene configurado el inicio de sesión, así que no puedes iniciar sesión aquí.
signin-not-matched-title = Este inicio de sesión no empezó aquí
signin-not-matched = No pudimos relacionar el inicio de sesión con ninguno que empezara este navegador (o tardó más de 10 minutos). Empieza de nuevo.
signin-unavailable-title = El inicio de sesión no está disponible ahora
signin-too-many-title = Demasiados inicios de sesión desde tu red
signin-failed-title = El inicio de sesión no se completó
signin-unavailable = El servicio de inicio de sesión no responde ahora mismo. Inténtalo de nuevo en un momento.
signin-failed = No se pudo completar el inicio de sesión, así que no has iniciado sesión. Inténtalo de nuevo.
signin-back = Volver
# The page an instance at capacity answers instead of a waiting room (it comes back by itself).
busy-title = Un momento
busy-place-kept = Anteroom está al límite de su capacidad en este momento; si tienes un lugar en la fila, lo conservas.
page-could-not-open = No pudimos abrir esta venta
page-try-again = Volver a intentarlo
page-tries-again-in = Esta página volverá a intentarlo automáticamente en { $n ->
    [one] { $n } segundo
   *[other] { $n } segundos
}.

## What the page's live region says to a screen reader when the stage changes

say-not-open = La venta aún no ha empezado.
# $ticket: the buyer's ticket in the draw, a code.
say-pre-queue = Estás en la precola con el número de sorteo { $ticket }. Tu lugar en la cola se decidirá en el sorteo.
say-paused = Estás en la cola. La venta está en pausa.
# $wait: "aproximadamente 5 minutos", "menos de un minuto".
say-waiting = Estás en la cola. Espera estimada: { $wait }.
say-sold-out = Agotado: se vendieron todos los asientos.
say-moved = Tu lugar se trasladó a otro dispositivo. Continúa allí.
say-choosing = Es tu turno: elige tus asientos.
say-holding = Tus asientos están reservados. Paga antes de que se acabe el tiempo.
say-confirmed = Listo. Compraste tus asientos.

## Around every page, and the list of events (app/src/pages.rs)

# The name of the language switcher, for screen readers.
languages = Idioma
not-found = Página no encontrada
not-found-here = Aquí no hay ninguna página.
not-found-events = Ver los eventos a la venta.
events-title = Eventos · Anteroom
events-heading = Eventos a la venta
events-show-details = Mostrar detalles de la sala de espera
events-hide-details = Ocultar detalles de la sala de espera
events-loading = Cargando eventos…
events-none = Todavía no hay nada a la venta.
events-no-waiting = A la venta: sin espera
events-paused = Sala de espera en pausa
events-open = Sala de espera abierta
# $opens: "martes, 1 de diciembre de 2026, 19:00 hora de Berlín".
events-opens = La venta se abre el { $opens }
events-opens-with-pre-queue = La venta se abre el { $opens }; precola desde el { $prequeue } (todas las personas que estén en ella tienen las mismas posibilidades)
events-admitted-per-second = Accesos por segundo
events-hold-lasts = Duración de la reserva
events-minutes = { $n } min
events-seats-per-buyer = Asientos por comprador

## Before the line: the countdowns and the pre-queue (app/src/onsale/opening.rs)
# $time/$sale/$prequeue below are either "19:00 hora de Berlín" (today) or
# "martes, 1 de diciembre, 19:00 hora de Berlín", so they are given after a colon or in brackets.

opening-not-yet = La venta aún no ha empezado
# $time: when the sale opens, e.g. "martes, 1 de diciembre, 19:00 hora de Berlín".
opening-sale-at = Apertura de la venta: { $time }
# $time: when the pre-queue opens; $countdown: "2:05", "1:02:05" or "2 días 3 h".
opening-prequeue-at = La precola se abre dentro de { $countdown } ({ $time }).
# $prequeue: when the pre-queue opens; $sale: when the sale opens (and the draw is made).
opening-prequeue-explained = Todas las personas que entren en la precola entre su apertura ({ $prequeue }) y el inicio de la venta ({ $sale }) tienen las mismas posibilidades: al inicio de la venta, un sorteo las coloca a todas en la cola en orden aleatorio, por delante de quienes lleguen después. Llegar primero no da ninguna ventaja, así que no hace falta correr: entra cuando quieras antes del inicio de la venta.
# $countdown: "2:05", "1:02:05" or "2 días 3 h".
opening-sale-in = Se abre dentro de { $countdown }. A partir de ese momento, se atiende por orden de llegada.
opening-keep-open = Mantén esta página abierta: entrará por ti cuando llegue el momento.
opening-in-prequeue = Estás en la precola
# $ticket: the buyer's ticket in the draw, a random code.
opening-your-ticket = Tu número de sorteo: { $ticket }
# $time: when the sale opens; $countdown: "2:05", "1:02:05" or "2 días 3 h".
opening-draw-at = El sorteo se hará dentro de { $countdown } ({ $time }).
opening-draw-now = Se está haciendo el sorteo: tu lugar llegará en un momento.
# $time: when the sale opens (and the draw is made).
opening-draw-explained = Todas las personas que entren antes del sorteo ({ $time }) tienen las mismas posibilidades: da igual entrar pronto o en el último segundo. En ese momento, un sorteo pone todos los números en orden aleatorio, y ese es el orden de la cola, por delante de todas las personas que lleguen después.
opening-ticket-kept = Mantén esta página abierta o vuelve antes del sorteo: tu número de sorteo sigue siendo tuyo, en todas las pestañas. Es aleatorio y no revela nada sobre ti; después del sorteo, cualquiera puede comprobar en qué lugar quedó cada número.

## The waiting room (app/src/onsale/waiting.rs)

waiting-in-room = Estás en la sala de espera
# $place: waiting-position or waiting-position-about, shown in bold.
waiting-place = Tu lugar en la cola: { $place }
# The buyer's exact place in line: "n.º 14.812".
waiting-position = n.º { $n }
# The buyer's place in line when it is an estimate: "alrededor del n.º 14.812".
waiting-position-about = alrededor del n.º { $n }
waiting-paused = La venta está en pausa un momento. Conservas tu lugar; nadie puede adelantarte.
# $wait: "aproximadamente entre 3 y 4 minutos", shown in bold.
waiting-turn-in = Espera estimada hasta tu turno: { $wait }.
waiting-progress = Progreso desde que entraste
# How often the page refreshes itself, in seconds.
waiting-refresh-every = { $n ->
    [60] cada minuto
    [one] cada segundo
    [many] cada { $n } de segundos
   *[other] cada { $n } segundos
}
# $every: waiting-refresh-every ("cada 3 segundos").
waiting-keep-open = Mantén esta página abierta: se actualiza sola ({ $every }) y te dará acceso cuando sea tu turno. Recargar o abrir más pestañas no cambia tu lugar.
waiting-refreshes = Esta página se actualiza sola, con menos frecuencia mientras tu turno esté lejos.
# $ticket: the buyer's ticket in the draw (a code); $place: the place the draw gave it ("14.812").
waiting-drawn-place = Tu lugar viene del sorteo: al número { $ticket } le tocó el lugar { $place }.
# $address: the web address where the draw is published (a link); $command: a command line to check it.
waiting-check-draw = Compruébalo por tu cuenta: el sorteo está publicado en { $address } (el secreto fijado antes de que se abriera la precola, el beacon, la semilla y todos los números en orden). Cualquiera puede recalcularlo, o ejecutar { $command }.
# Stands for the sale's web address in a command line the buyer may run.
waiting-this-site = <este sitio>
waiting-recovered = Hace un momento, la sala de espera se recuperó de un fallo de su almacenamiento. Tu lugar se mantiene según tu orden de llegada; tu posición puede haber retrocedido mientras se vuelven a conceder los accesos perdidos en el fallo.
waiting-turn-passed = Tu turno pasó sin que eligieras asientos, así que volviste a la cola.

## While the browser joins the line (app/src/onsale/arriving.rs)

arriving-getting-place = Obteniendo tu lugar…
arriving-proof-work = Esta venta pide a cada navegador unos segundos de trabajo antes de entrar en la cola, para que nadie pueda acaparar lugares de forma masiva. Tu navegador lo está haciendo ahora; mantén esta página abierta y avanzará sola.
arriving-proof-needs-script = Ese trabajo necesita JavaScript: actívalo para este sitio y recarga la página.
arriving-joining = Un momento: tu navegador está entrando en la cola.
arriving-reloads = Esta página se recargará sola en un segundo con tu lugar.

## Pages without JavaScript (app/src/onsale/noscript.rs)

noscript-countdown-refresh = Esta página se actualiza sola; el tiempo restante se corrige cada vez que lo hace.

## The buyer's turn: the seat map (app/src/onsale/seats.rs)

seats-your-turn = ¡Ya estás dentro! Es tu turno.
seats-title = Elige tus asientos
# $n: how many seats one buyer may hold at this sale.
seats-intro = { $n ->
    [one] Hasta 1 asiento. Abre una sección y marca asientos para elegirlos, o deja que busquemos los mejores juntos.
    [many] Hasta { $n } de asientos. Abre una sección y marca asientos para elegirlos, o deja que busquemos los mejores juntos.
   *[other] Hasta { $n } asientos. Abre una sección y marca asientos para elegirlos, o deja que busquemos los mejores juntos.
}
# The label of the list of the hall's sections (read by screen readers).
seats-sections = Secciones
# The map's legend: what a seat's colour means.
seats-available = Disponible
seats-chosen = Tu selección
seats-held = Reservado
seats-sold = Vendido
# The buyer picks how large the seats are drawn.
seats-size = Tamaño de los asientos
seats-size-small = Pequeño
seats-size-medium = Mediano
seats-size-large = Grande
# Marks where the stage is, above the seats.
seats-stage = Escenario
# A section's tile in the overview: its seats still free.
seats-left = { $n ->
    [0] Ninguno libre ahora
    [one] Queda 1 asiento
    [many] Quedan { $n } de asientos
   *[other] Quedan { $n } asientos
}
# A section's prices, cheapest to dearest: "de 25,00 EUR a 45,00 EUR".
seats-price-range = de { $low } a { $high }
# A seat's name: "Platea, fila 4, asiento 12" ($section and $row are the venue's own names).
seats-seat = { $section }, fila { $row }, asiento { $seat }
# A seat the map no longer shows, by its code.
seats-seat-id = asiento { $id }
# Between seats' names in a list: "Platea, fila 4, asiento 12; Platea, fila 4, asiento 13"
# (a semicolon, since each name has commas).
seats-list-separator = { "; " }
# A row of seats, as screen readers name it: "Platea, fila 4".
seats-row = { $section }, fila { $row }
# A seat's checkbox, as screen readers read it: "Platea, fila 4, asiento 12, 45,00 EUR, disponible".
seats-seat-described = { $section }, fila { $row }, asiento { $seat }, { $price }, { $status ->
    [available] disponible
    [held] reservado
   *[sold] vendido
}
# $n: how many seats are ticked.
seats-hold-button = { $n ->
    [0] Reservar los asientos marcados
    [one] Reservar 1 asiento
    [many] Reservar { $n } de asientos
   *[other] Reservar { $n } asientos
}
seats-best = O bien: los mejores disponibles
seats-best-section = Sección
# How many seats to find together.
seats-best-quantity = Asientos
seats-find = Buscar asientos
# $seats: the seats' names, as a list ("Platea, fila 4, asiento 12; Platea, fila 4, asiento 13").
seats-taken = Alguien acaba de llevarse: { $seats }. El mapa muestra ahora lo que queda; vuelve a elegir.
seats-not-together = No quedan tantos asientos juntos en esa sección. Prueba con menos asientos o con otra sección.
# $n: how many seats one buyer may hold at this sale.
seats-limit-reached = { $n ->
    [one] Puedes reservar como máximo 1 asiento; desmarca uno para elegir otro.
    [many] Puedes reservar como máximo { $n } de asientos; desmarca uno para elegir otro.
   *[other] Puedes reservar como máximo { $n } asientos; desmarca uno para elegir otro.
}

## The buyer's turn: seats held (app/src/onsale/held.rs)

held-title = Tus asientos están reservados
# $time is a countdown, "4:59", shown in bold.
held-for = Tiempo restante de tu reserva: { $time }
# $amount: "90,00 EUR".
held-pay = Pagar { $amount }
held-release = Liberar asientos
held-ended = Tu reserva terminó y los asientos volvieron a la venta. Si quieres, vuelve a elegir.
held-one-minute = Queda un minuto: paga ahora o los asientos volverán a la venta.
# A held seat: "Platea · fila 4 · asiento 12" ($section and $row are the venue's own names).
held-seat = { $section } · fila { $row } · asiento { $seat }
held-total = Total

## The end: sold out, or the order confirmed (app/src/onsale/done.rs)

done-sold-out-title = Agotado
done-sold-out = Se vendieron todos los asientos de este evento, así que la sala de espera se cerró.
done-title = ¡Compra confirmada!
# $order is the order's number, shown in bold.
done-order-number = Número de pedido: { $order }
done-keep = Guarda el número de pedido; tus entradas están en camino.
done-back = Volver a los eventos

## Moving a place to another device (app/src/onsale/moving.rs)

# A page without JavaScript opened with a move code: the form that claims the place.
moving-claim-coming = Tu lugar en la cola se está trasladando aquí desde tu otro dispositivo.
# The button that claims a place moved from another device (the no-JavaScript form and the
# "Have a code from another device?" form).
moving-move-mine-here = Trasladar mi lugar aquí
# Read by screen readers: the box that asks whether to take a place moving here over this page's own.
moving-choice-label = Un lugar que se traslada aquí
moving-choice-move = Trasladar ese lugar aquí
moving-choice-keep = Conservar el lugar de este dispositivo
# The button that asks for a one-time code moving this page's place to another device.
moving-continue-elsewhere = Continuar en otro dispositivo
moving-code-heading = Tu código para el otro dispositivo
# Also quoted inside move-explained.
moving-have-code = ¿Tienes un código de otro dispositivo?
# The label of the field where the buyer types the code.
moving-code-label = El código que muestra tu otro dispositivo
