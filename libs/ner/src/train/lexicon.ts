/**
 * Hand-written word lists: the groups (NRP) no data package lists, the words
 * that announce an organisation or an address, and the honorifics that stand
 * before a name but are not part of it.
 */

export const RELIGIONS = [
  'Christian', 'Christians', 'Catholic', 'Catholics', 'Roman Catholic', 'Protestant', 'Protestants', 'Orthodox', 'Greek Orthodox',
  'Russian Orthodox', 'Anglican', 'Anglicans', 'Baptist', 'Baptists', 'Methodist', 'Methodists', 'Lutheran', 'Lutherans',
  'Presbyterian', 'Evangelical', 'Evangelicals', 'Pentecostal', 'Mormon', 'Mormons', 'Quaker', 'Quakers', 'Amish', 'Calvinist',
  'Muslim', 'Muslims', 'Moslem', 'Sunni', 'Sunnis', 'Shia', 'Shiite', 'Shiites', 'Sufi', 'Ahmadi', 'Jewish', 'Jew', 'Jews',
  'Orthodox Jewish', 'Hasidic', 'Hindu', 'Hindus', 'Buddhist', 'Buddhists', 'Sikh', 'Sikhs', 'Jain', 'Jains', 'Bahai', "Baha'i",
  'Zoroastrian', 'Taoist', 'Shinto', 'Confucian', 'Rastafarian', 'Pagan', 'Wiccan', 'Atheist', 'Atheists', 'Agnostic', 'Agnostics',
  "Jehovah's Witness", "Jehovah's Witnesses", 'Coptic', 'Copts', 'Maronite', 'Druze', 'Yazidi', 'Alawite', 'Hebrew',
];

export const POLITICAL = [
  'Democrat', 'Democrats', 'Democratic', 'Republican', 'Republicans', 'Conservative', 'Conservatives', 'Tory', 'Tories',
  'Liberal', 'Liberals', 'Socialist', 'Socialists', 'Social Democrat', 'Social Democrats', 'Communist',
  'Communists', 'Marxist', 'Marxists', 'Leninist', 'Maoist', 'Green', 'Greens', 'Libertarian', 'Libertarians', 'Progressive',
  'Progressives', 'Nationalist', 'Nationalists', 'Populist', 'Populists', 'Anarchist', 'Anarchists', 'Centrist', 'Centrists',
  'Christian Democrat', 'Christian Democrats', 'Whig', 'Whigs', 'Federalist', 'Federalists', 'Unionist', 'Unionists',
  'Separatist', 'Separatists', 'Royalist', 'Royalists', 'Monarchist', 'Republican Party', 'Democratic Party', 'Labour Party',
  'Conservative Party', 'Green Party', 'Tea Party', 'Zionist', 'Zionists', 'Fascist', 'Fascists', 'Bolshevik', 'Bolsheviks',
];

/** Groups of people that are neither a country's demonym nor a faith. */
export const ETHNIC = [
  'Latino', 'Latina', 'Latinos', 'Hispanic', 'Hispanics', 'African American', 'African-American', 'Afro-Caribbean', 'Arab',
  'Arabs', 'Asian', 'Asians', 'Asian American', 'Caucasian', 'Berber', 'Kurd', 'Kurds', 'Kurdish', 'Roma', 'Romani', 'Tamil',
  'Tamils', 'Basque', 'Basques', 'Catalan', 'Catalans', 'Flemish', 'Walloon', 'Scottish', 'Scots', 'Welsh', 'English', 'Irish',
  'Maori', 'Aboriginal', 'Inuit', 'Sami', 'Pashtun', 'Punjabi', 'Bengali', 'Gujarati', 'Tatar', 'Uyghur', 'Uighur', 'Zulu',
  'Xhosa', 'Yoruba', 'Igbo', 'Hausa', 'Amhara', 'Oromo', 'Somali', 'Tutsi', 'Hutu', 'Cherokee', 'Navajo', 'Slavic', 'Nordic',
  'Scandinavian', 'European', 'Europeans', 'African', 'Africans', 'Latin American', 'Middle Eastern', 'Native American',
  'Pacific Islander', 'Bavarian', 'Sicilian', 'Corsican', 'Breton', 'Cossack', 'Bosniak', 'Parsi',
];

/** Legal forms and head words that end an organisation's name. */
export const ORG_SUFFIXES = [
  'Inc', 'Inc.', 'Incorporated', 'Corp', 'Corp.', 'Corporation', 'Co', 'Co.', 'Company', 'Ltd', 'Ltd.', 'Limited', 'LLC', 'L.L.C.',
  'LLP', 'LP', 'PLC', 'plc', 'GmbH', 'AG', 'KG', 'SE', 'SA', 'S.A.', 'SAS', 'SARL', 'S.p.A.', 'SpA', 'Srl', 'S.r.l.', 'BV', 'B.V.', 'NV',
  'N.V.', 'AB', 'ASA', 'A/S', 'Oy', 'Oyj', 'Kft', 'Kft.', 'Zrt', 'Rt', 's.r.o.', 'a.s.', 'Sp. z o.o.', 'Pty', 'Pty Ltd', 'Pvt Ltd',
  'Group', 'Holdings', 'Holding', 'Partners', 'Associates', 'Enterprises', 'Industries', 'International', 'Technologies',
  'Technology', 'Tech', 'Systems', 'Solutions', 'Services', 'Software', 'Labs', 'Laboratories', 'Networks', 'Media', 'Studios',
  'Consulting', 'Consultants', 'Ventures', 'Capital', 'Investments', 'Bank', 'Bancorp', 'Insurance', 'Assurance', 'Financial',
  'Logistics', 'Pharmaceuticals', 'Pharma', 'Therapeutics', 'Biotech', 'Motors', 'Airlines', 'Airways', 'Energy', 'Foods',
  'Brands', 'Trust', 'Foundation', 'Institute', 'University', 'College', 'Academy', 'School', 'Hospital', 'Clinic', 'Association',
  'Society', 'Council', 'Committee', 'Commission', 'Agency', 'Authority', 'Federation', 'Union', 'League', 'Club', 'Orchestra',
  'Museum', 'Library', 'Church', 'Ministry', 'Department', 'Bureau', 'Office', 'Board', 'Fund', 'Cooperative', 'Co-op',
  'Brothers', 'Bros', 'Bros.', '& Sons', 'and Sons', '& Co', '& Co.', 'Kommanditbolag', 'Aktiebolag', 'e Hijos', 'y Asociados',
];

/** Organisations a reader knows by name; a hint, like every list here. */
export const KNOWN_ORGS = [
  'Google', 'Alphabet', 'Microsoft', 'Apple', 'Amazon', 'Meta', 'Facebook', 'Netflix', 'IBM', 'Intel', 'Oracle', 'SAP', 'Siemens',
  'Bosch', 'Volkswagen', 'BMW', 'Daimler', 'Mercedes-Benz', 'Toyota', 'Honda', 'Nissan', 'Sony', 'Samsung', 'LG', 'Huawei',
  'Xiaomi', 'Tencent', 'Alibaba', 'Baidu', 'Nokia', 'Ericsson', 'Philips', 'Unilever', 'Nestle', 'Nestlé', 'Danone', 'Shell',
  'BP', 'ExxonMobil', 'Chevron', 'TotalEnergies', 'Total', 'Airbus', 'Boeing', 'Lufthansa', 'Ryanair', 'easyJet', 'Delta',
  'United Airlines', 'Emirates', 'Qatar Airways', 'Tesla', 'SpaceX', 'Ford', 'General Motors', 'GM', 'Walmart', 'Target',
  'Costco', 'Carrefour', 'Tesco', 'Aldi', 'Lidl', 'IKEA', 'H&M', 'Zara', 'Inditex', 'Nike', 'Adidas', 'Puma', 'Coca-Cola', 'Pepsi',
  'PepsiCo', "McDonald's", 'Starbucks', 'Visa', 'Mastercard', 'PayPal', 'Stripe', 'JPMorgan', 'JPMorgan Chase', 'Goldman Sachs',
  'Morgan Stanley', 'Citibank', 'Citigroup', 'HSBC', 'Barclays', 'Deutsche Bank', 'BNP Paribas', 'Santander', 'ING', 'UBS',
  'Credit Suisse', 'Allianz', 'AXA', 'Pfizer', 'Moderna', 'Novartis', 'Roche', 'Bayer', 'Sanofi', 'AstraZeneca', 'GSK',
  'Johnson & Johnson', 'Accenture', 'Deloitte', 'PwC', 'KPMG', 'EY', 'Ernst & Young', 'McKinsey', 'Salesforce', 'Adobe', 'Cisco',
  'Uber', 'Airbnb', 'Spotify', 'Twitter', 'LinkedIn', 'OpenAI', 'Anthropic', 'Nvidia', 'AMD', 'Dell', 'HP', 'Lenovo', 'FedEx',
  'UPS', 'DHL', 'Reuters', 'BBC', 'CNN', 'NASA', 'FBI', 'CIA', 'NATO', 'UN', 'U.N.', 'United Nations', 'UNICEF', 'UNESCO', 'WHO',
  'World Health Organization', 'World Bank', 'IMF', 'European Union', 'EU', 'European Commission', 'Red Cross', 'Greenpeace',
  'Amnesty International', 'Oxfam', 'WWF', 'FIFA', 'UEFA', 'IOC', 'OECD', 'OPEC', 'WTO', 'Interpol', 'Europol', 'Harvard', 'MIT',
  'Stanford', 'Oxford', 'Cambridge', 'Yale', 'Princeton', 'Sorbonne', 'ETH Zurich',
];

/** Words that begin or end a street name. */
export const STREET_WORDS = [
  'Street', 'St', 'St.', 'Avenue', 'Ave', 'Ave.', 'Road', 'Rd', 'Rd.', 'Boulevard', 'Blvd', 'Blvd.', 'Lane', 'Ln', 'Drive', 'Dr',
  'Court', 'Ct', 'Place', 'Pl', 'Square', 'Sq', 'Terrace', 'Way', 'Parkway', 'Pkwy', 'Highway', 'Hwy', 'Circle', 'Crescent',
  'Close', 'Row', 'Alley', 'Trail', 'Route', 'Pike', 'Plaza', 'Mews', 'Gardens', 'Grove', 'Hill', 'Heights', 'Walk', 'Path',
  'Junction', 'Point', 'Ridge', 'Crossing', 'Rue', 'Avenue', 'Allée', 'Chemin', 'Impasse', 'Quai', 'Calle', 'Avenida', 'Paseo',
  'Carrera', 'Camino', 'Plaza', 'Rua', 'Travessa', 'Largo', 'Via', 'Viale', 'Piazza', 'Corso', 'Vicolo', 'Straße', 'Strasse',
  'Weg', 'Gasse', 'Platz', 'Allee', 'Ring', 'ulica', 'ul.', 'aleja', 'al.', 'utca', 'út', 'tér', 'köz', 'gatan', 'vägen', 'katu',
  'tie', 'Sokak', 'Caddesi', 'Bulvarı', 'Mahallesi', 'Straat', 'Laan', 'Gracht', 'Plein', 'Vej', 'Gade', 'Veien', 'Gate',
];

export const UNIT_WORDS = [
  'Apt', 'Apt.', 'Apartment', 'Suite', 'Ste', 'Ste.', 'Unit', 'Flat', 'Floor', 'Fl', 'Room', 'Rm', 'Building', 'Bldg', 'Block',
  'Lot', 'PO Box', 'P.O. Box', 'Box', 'Lgh', 'Lgh.', 'Zimmer', 'Wohnung', 'Etage', 'Piso', 'Bajo', 'Puerta', 'Interior',
  'Depto', 'Dpto', 'Appartement', 'Bâtiment', 'Escalier', 'Stiege', 'Tür', 'kv.', 'm.', 'lok.',
];

export const HONORIFICS = [
  'Mr', 'Mr.', 'Mrs', 'Mrs.', 'Ms', 'Ms.', 'Miss', 'Mx', 'Mx.', 'Dr', 'Dr.', 'Prof', 'Prof.', 'Professor', 'Sir', 'Dame', 'Lady',
  'Lord', 'Madam', 'Madame', 'Mme', 'Mlle', 'Monsieur', 'M.', 'Herr', 'Frau', 'Señor', 'Señora', 'Sr.', 'Sra.', 'Srta.', 'Don',
  'Doña', 'Signor', 'Signora', 'Sig.', 'Pan', 'Pani', 'Rev', 'Rev.', 'Reverend', 'Father', 'Sister', 'Brother', 'Rabbi', 'Imam',
  'Pastor', 'Captain', 'Capt.', 'Colonel', 'Col.', 'General', 'Gen.', 'Lieutenant', 'Lt.', 'Sergeant', 'Sgt.', 'Officer',
  'Detective', 'Judge', 'Justice', 'Senator', 'Sen.', 'Governor', 'Gov.', 'Mayor', 'President', 'Minister', 'Ambassador',
  'Prince', 'Princess', 'King', 'Queen', 'Coach', 'Nurse', 'Agent', 'Ing.', 'Mgr.', 'Bc.', 'Uncle', 'Aunt', 'Auntie', 'Grandma',
];

export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
  'Jan', 'Jan.', 'Feb', 'Feb.', 'Mar', 'Mar.', 'Apr', 'Apr.', 'Jun', 'Jul', 'Aug', 'Aug.', 'Sep', 'Sep.', 'Sept', 'Sept.', 'Oct',
  'Oct.', 'Nov', 'Nov.', 'Dec', 'Dec.',
];

export const WEEKDAYS = [
  'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'Mon', 'Tue', 'Tues', 'Wed', 'Thu', 'Thur',
  'Thurs', 'Fri', 'Sat', 'Sun',
];

export const TIME_WORDS = ['am', 'a.m.', 'pm', 'p.m.', 'noon', 'midnight', "o'clock", 'UTC', 'GMT', 'CET', 'CEST', 'EST', 'EDT', 'PST', 'PDT', 'IST', 'BST', 'JST'];

export const REGIONS = [
  'Europe', 'Asia', 'Africa', 'North America', 'South America', 'Latin America', 'Central America', 'Oceania', 'Antarctica',
  'the Middle East', 'Middle East', 'the Balkans', 'Scandinavia', 'the Caribbean', 'Caribbean', 'Southeast Asia', 'East Asia',
  'South Asia', 'Central Asia', 'Eastern Europe', 'Western Europe', 'Northern Europe', 'Southern Europe', 'Sub-Saharan Africa',
  'North Africa', 'West Africa', 'East Africa', 'the Pacific', 'the Atlantic', 'the Mediterranean', 'Siberia', 'Patagonia',
  'the Sahara', 'Silicon Valley', 'the Alps', 'the Andes', 'the Himalayas', 'New England', 'the Midwest', 'the Baltics',
];

export const COUNTRY_EXTRAS = [
  'USA', 'U.S.', 'U.S.A.', 'US', 'America', 'United States', 'the United States', 'UK', 'U.K.', 'Britain', 'Great Britain',
  'England', 'Scotland', 'Wales', 'Northern Ireland', 'Holland', 'the Netherlands', 'UAE', 'the UAE', 'Czechia', 'Czech Republic',
  'South Korea', 'North Korea', 'Russia', 'Ivory Coast', 'Burma', 'Persia', 'Taiwan', 'Palestine', 'Kosovo', 'Vatican',
];
